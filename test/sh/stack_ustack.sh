#!/bin/bash
# ustack() and stack(): as actions and as aggregation keys, symbolized as
# module`function+0xoff.  pidtarget is built with frame pointers; add() is
# a leaf without a frame (the caller comes from the top of the stack at the
# entry), sum8() pushes one (the kernel adds the caller itself: it must not
# show twice).  libc has no frame pointers: the walk may stop in it.
set -u
[ -x "$DTRACE" ] || exit 77
T=$B/test/progs/pidtarget
[ -x "$T" ] || exit 77
fail=0
I='              '	# DTrace's stack indent

check() {	# name, actual, expected regex (grep -E on the whole text)
	if ! printf '%s\n' "$2" | tr '\n' '|' | grep -Eqx "$3"; then
		echo "FAIL $1: got:"; printf '%s\n' "$2"
		echo "expected (| = newline): $3"
		echo "stderr:"; cat err
		fail=1
	fi
}

# 1. ustack() at the entry of a leaf function: add, main, then libc
out=$("$DTRACE" -q -c "$T -s 1000 0" \
	-n 'pid$target:a.out:add:entry { ustack(); exit(0); }' 2>err)
check "ustack leaf" "$out" \
	"\|${I}a\.out\`add\|${I}a\.out\`main\+0x[0-9a-f]+\|${I}libc\.so\.6\`[_a-z]+\+0x[0-9a-f]+\|.*"

# 2. at a function that pushes a frame: main once
out=$("$DTRACE" -q -c "$T -s 1000 0" \
	-n 'pid$target:a.out:sum8:entry { ustack(2); exit(0); }' 2>err)
check "ustack frame" "$out" "\|${I}a\.out\`sum8\|${I}a\.out\`main\+0x[0-9a-f]+\|\|?"

# 3. as an aggregation key, printed at the end after the process is gone
out=$("$DTRACE" -q -c "$T 3" \
	-n 'pid$target:a.out:add:entry { @[ustack(2)] = count(); }' 2>err |
	grep -v '^done ')
check "ustack key" "$out" \
	"\|*${I}a\.out\`add\|${I}a\.out\`main\+0x[0-9a-f]+\| {16}3\|\|?"

# 4. two stacks and a string: keys side by side; stack() at a user probe
#    is empty
out=$("$DTRACE" -q -c "$T 2" \
	-n 'pid$target:a.out:add:entry { @[ustack(1), probefunc, stack()] = count(); }' \
	2>err | grep -v '^done ')
check "mixed keys" "$out" "\|*${I}a\.out\`add\|  add +\| +2\|\|?"

# 5. printa's %k prints a stack key as trace() does
out=$("$DTRACE" -q -c "$T 2" \
	-n 'pid$target:a.out:add:entry { @[ustack(2)] = count(); }' \
	-n 'END { printa("%k %@d\n", @); }' 2>err | grep -v '^done ')
check "printa %k" "$out" \
	"\|*${I}a\.out\`add\|${I}a\.out\`main\+0x[0-9a-f]+\| 2\|\|?"

# 6. bad arguments are refused at compile time
for s in 'ustack(0)' 'ustack(x)' 'stack(2000)' 'x = ustack()' \
	 '@[ustack(1)] = count(); @[ustack(2)] = count()' 'ustack(1, 2, 3)' \
	 'printf("%k", 1)'; do
	if "$DTRACE" -e -n "BEGIN { x = 1; $s; }" >out 2>err; then
		echo "FAIL: '$s' was accepted"; fail=1
	fi
	grep -q 'invalid probe specifier' err || { echo "FAIL '$s':"; cat err; fail=1; }
done
exit $fail
