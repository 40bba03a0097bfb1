#!/bin/bash
# SPDX-License-Identifier: MIT
# A library that the traced process dlopen'ed is symbolized in its stacks
# even when the process has exited before dtrace reads the record: the
# modules are read again on the loader's event (the exec watch), while the
# process still runs.  pidtarget -w loads libsq.so, waits for a line, calls
# lib_square once and exits at once.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
need_cmd cc
. "$TESTDIR/sh/lib/check_lib.sh"
I='              '	# DTrace's stack indent

printf 'int lib_square(int x) { return x * x; }\n' >libsq.c
cc -shared -fPIC -O1 -o libsq.so libsq.c || exit 1

# "go" once the program has mapped the library and dtrace has had a
# moment to hear of it (the wait is the program's, not an assertion)
mkfifo go && exec 3<>go
timeout 60 "$DTRACE" -q -Z -c "$T -w -l ./libsq.so 1" \
	-n 'pid$target:libsq.so:lib_square:entry { ustack(); }' <go >out 2>err &
dt=$!
for _ in $(seq 300); do
	pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' err)
	[ -n "$pid" ] && grep -q libsq.so "/proc/$pid/maps" 2>/dev/null && break
	sleep 0.1
done
sleep 1
echo go >&3
wait $dt
out=$(grep -v '^done' out)
check "dlopen then exit" "$out" \
	"\|${I}libsq\.so\`lib_square\|${I}pidtarget\`main\+0x[0-9a-f]+\|${I}libc\.so\.6\`__libc_start_call_main\+0x[0-9a-f]+\|${I}libc\.so\.6\`__libc_start_main\+0x[0-9a-f]+\|${I}pidtarget\`_start\+0x[0-9a-f]+\|"
exit $status
