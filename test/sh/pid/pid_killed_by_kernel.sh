#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A traced process that the kernel kills with SIGILL because a uprobe
# could not be handled (si_code SI_KERNEL, from the uprobe code) is
# reported on stderr, with -q too, under -c and -p; a SIGILL that the
# process sends itself is not.  The kernel's SIGILL comes from the
# uretprobe system call made outside the uretprobe trampoline: the same
# force_sig(SIGILL) of the uprobe code as for a return it cannot follow,
# reliable and needing no return probe that the pid provider would refuse.
# Alone: a session of another test whose uprobes cover every process
# would report the SIGILL of this test's program too.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog kernel_sigill
"$T" kernel >/dev/null 2>&1
[ $? = 132 ] || { echo "no uretprobe system call here (Linux < 6.11)"; exit 77; }

report='^dtrace: pid [0-9]+ \(kernel_sigill\) was killed by SIGILL: the kernel could not follow a return probe or step over a probed instruction$'

timeout 60 "$DTRACE" -q -n 'pid$target:a.out:main:entry { @ = count(); }' \
	-c "$T kernel" >out 2>err
rc=$?
grep -qx dying out || fail_run "the program did not run (-c)"
grep -Eq "$report" err || fail_run "no report of the kernel's SIGILL (-c)"

timeout 60 "$DTRACE" -q -n 'pid$target:a.out:main:entry { @ = count(); }' \
	-c "$T user" >out 2>err
rc=$?
grep -qx dying out || fail_run "the program did not run (user)"
grep -q 'killed by SIGILL' err && fail_run "a SIGILL the process sent itself reported"

# -p: the program waits for dtrace to have attached (BEGIN touches go).
"$T" kernel go >prog.out 2>&1 &
pid=$!
timeout 60 "$DTRACE" -w -q -p $pid \
	-n 'pid$target:a.out:main:return { @ = count(); }' \
	-n 'BEGIN { system("touch go"); }' >out 2>err
rc=$?
touch go
wait $pid
grep -Eq "$report" err || fail_run "no report of the kernel's SIGILL (-p)"
grep -q "pid $pid " err || fail_run "the report does not name pid $pid (-p)"
exit 0
