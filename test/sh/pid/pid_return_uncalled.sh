#!/bin/bash
# SPDX-License-Identifier: MIT
# A return probe on a function that no call enters (_start, whose [sp] holds
# argc, not a return address) is refused with a warning naming it, and the
# traced program runs with its arguments intact; the other functions'
# return probes still fire.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog argv_print

"$DTRACE" -q -n 'pid$target:a.out::return { @[probefunc] = count(); }' \
	-c "$T a b" >out 2>err
rc=$?
[ $rc = 0 ] || fail_run "dtrace failed"
grep -qx 'argc 3: a b' out || fail_run "the program's arguments were changed"
grep -Eq '^ +main +1$' out || fail_run "main's return probe did not fire once"
grep -q '_start' out && fail_run "_start's return probe fired"
grep -Eqx 'dtrace: 1 return probe not placed: its function is never called, so its stack holds no return address to replace: pid[0-9]+:a.out:_start:return' err ||
	fail_run "no warning naming _start"

# The loader's and libc's trampolines entered without a call are refused
# by name too, and the program still runs right.
"$DTRACE" -q -n 'pid$target:libc.so.6::return { @n = count(); }' \
	-c "$T c" >out 2>err
rc=$?
[ $rc = 0 ] || fail_run "dtrace failed (libc)"
grep -qx 'argc 2: c' out || fail_run "the program's arguments were changed (libc)"
grep -q 'libc.so.6:__restore_rt:return' err || fail_run "__restore_rt not named"
exit 0
