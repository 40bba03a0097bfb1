#!/bin/bash
# SPDX-License-Identifier: MIT
# ustack() and stack(): as actions and as aggregation keys, symbolized as
# module`function+0xoff.  pidtarget is built with frame pointers; add() is
# a leaf without a frame (the caller comes from the top of the stack at the
# entry), sum8() pushes one (the kernel adds the caller itself: it must not
# show twice).  libc has no frame pointers: the walk may stop in it.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
I='              '	# DTrace's stack indent

. "$TESTDIR/sh/lib/check_lib.sh"

# 1. ustack() at the entry of a leaf function: add, main, then libc
out=$("$DTRACE" -q -c "$T -s 1000 0" \
	-n 'pid$target:a.out:add:entry { ustack(); exit(0); }' 2>err)
check "ustack leaf" "$out" \
	"\|${I}pidtarget\`add\|${I}pidtarget\`main\+0x[0-9a-f]+\|${I}libc\.so\.6\`[_a-z]+\+0x[0-9a-f]+\|.*"

# 2. at a function that pushes a frame: main once
out=$("$DTRACE" -q -c "$T -s 1000 0" \
	-n 'pid$target:a.out:sum8:entry { ustack(2); exit(0); }' 2>err)
check "ustack frame" "$out" "\|${I}pidtarget\`sum8\|${I}pidtarget\`main\+0x[0-9a-f]+\|\|?"

# 3. as an aggregation key, printed at the end after the process is gone
out=$("$DTRACE" -q -c "$T 3" \
	-n 'pid$target:a.out:add:entry { @[ustack(2)] = count(); }' 2>err |
	grep -v '^done ')
check "ustack key" "$out" \
	"\|*${I}pidtarget\`add\|${I}pidtarget\`main\+0x[0-9a-f]+\| {16}3\|\|?"

# 4. two stacks and a string: keys side by side; stack() at a user probe
#    is empty
out=$("$DTRACE" -q -c "$T 2" \
	-n 'pid$target:a.out:add:entry { @[ustack(1), probefunc, stack()] = count(); }' \
	2>err | grep -v '^done ')
check "mixed keys" "$out" "\|*${I}pidtarget\`add\|  add +\| +2\|\|?"

# 5. printa's %k prints a stack key as trace() does
out=$("$DTRACE" -q -c "$T 2" \
	-n 'pid$target:a.out:add:entry { @[ustack(2)] = count(); }' \
	-n 'END { printa("%k %@d\n", @); }' 2>err | grep -v '^done ')
check "printa %k" "$out" \
	"\|*${I}pidtarget\`add\|${I}pidtarget\`main\+0x[0-9a-f]+\| 2\|\|?"

# 6. bad arguments are refused at compile time
refused 'ustack(0)' 'ustack(x)' 'stack(2000)' 'x = ustack()' \
	 '@[ustack(1)] = count(); @[ustack(2)] = count()' 'ustack(1, 2, 3)' \
	 'printf("%k", 1)'
exit $status
