#!/bin/bash
# SPDX-License-Identifier: MIT
# -p PID: a running process; $target is its pid; its exit ends dtrace.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$T" -s 20000 0 >/dev/null 2>&1 &
tpid=$!
trap 'kill -9 $tpid 2>/dev/null' EXIT
sleep 0.3
timeout 20 "$DTRACE" -q -p $tpid \
	-n 'pid$target:a.out:add:entry { printf("%d %d\n", pid == $target, arg1 - arg0); exit(0); }' \
	>out 2>err
rc=$?
if [ $rc != 0 ] || [ "$(cat out)" != "1 1" ]; then
	echo "exit $rc; stdout:"; cat out; echo "stderr:"; cat err
	exit 1
fi

# the target exits: dtrace ends too
timeout 20 "$DTRACE" -p $tpid -n 'pid$target:a.out:add:entry {}' \
	>out 2>err &
dpid=$!
sleep 1
kill -9 $tpid
wait $dpid
rc=$?
if [ $rc = 124 ] || ! grep -Eq "dtrace: pid $tpid (has exited|terminated by SIGKILL)" err; then
	echo "after the target's exit: exit $rc"; cat err
	exit 1
fi
exit 0
