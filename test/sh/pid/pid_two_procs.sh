#!/bin/bash
# SPDX-License-Identifier: MIT
# Two processes of one binary: tracing one never shows the other's events.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

"$T" -s 1000 0 >/dev/null 2>&1 & a=$!
"$T" -s 1000 0 >/dev/null 2>&1 & b=$!
trap 'kill -9 $a $b 2>/dev/null' EXIT
sleep 0.3
timeout 20 "$DTRACE" -q -p $a \
	-n 'pid$target:a.out:add:entry { printf("%d\n", pid); n++; }' \
	-n 'pid$target:a.out:add:entry /n >= 50/ { exit(0); }' >out 2>err
rc=$?
pids=$(grep -v '^$' out | sort -u)
if [ $rc != 0 ] || [ "$pids" != "$a" ] || [ "$(grep -c . out)" -lt 50 ]; then
	echo "exit $rc; traced $a, saw pids:"; echo "$pids"; cat err
	exit 1
fi
exit 0
