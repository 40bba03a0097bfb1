#!/bin/bash
# SPDX-License-Identifier: MIT
# A library that the traced process dlopen'ed is symbolized in its stacks
# even when the process has exited before dtrace reads the record: the
# modules are read again on the loader's event (the exec watch), while the
# process still runs.  pidtarget -w loads libsq.so, waits for a line, calls
# lib_square once and exits at once.
set -u
[ -x "$DTRACE" ] || exit 77
T=$B/test/progs/pidtarget
[ -x "$T" ] || exit 77
command -v cc >/dev/null || exit 77
. "$TESTDIR/sh/lib/check_lib.sh"
fail=0
I='              '	# DTrace's stack indent

printf 'int lib_square(int x) { return x * x; }\n' >libsq.c
cc -shared -fPIC -O1 -o libsq.so libsq.c || exit 1

out=$( (sleep 2; echo go) | timeout 30 "$DTRACE" -q -Z -c "$T -w -l ./libsq.so 1" \
	-n 'pid$target:libsq.so:lib_square:entry { ustack(); }' 2>err |
	grep -v '^done')
check "dlopen then exit" "$out" \
	"\|${I}libsq\.so\`lib_square\|${I}pidtarget\`main\+0x[0-9a-f]+\|${I}libc\.so\.6\`__libc_start_call_main\+0x[0-9a-f]+\|${I}libc\.so\.6\`__libc_start_main\+0x[0-9a-f]+\|${I}pidtarget\`_start\+0x[0-9a-f]+\|"
exit $fail
