#!/bin/bash
# SPDX-License-Identifier: MIT
# A bufsize too small for what a clause records, or an aggsize too small
# for one entry of an aggregation, is refused at start as DTrace refuses
# it; a dynvarsize too small for one element of a dynamic variable runs,
# and its stores are dynamic variable drops, as in DTrace.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

check() {	# check NAME RC OUT ERR: status 1, no output, DTrace's message
	if [ "$2" != 1 ] || [ -s "$3" ] || [ "$(cat "$4")" != \
	     "dtrace: could not enable tracing: Enabling exceeds size of buffer" ]
	then
		echo "$1: exit $2, stdout:"; cat "$3"; echo "stderr:"; cat "$4"
		status=1
	fi
}

"$DTRACE" -q -x bufsize=64 -n 'BEGIN { printf("%s\n", "hello"); exit(0); }' \
	>out 2>err
check bufsize $? out err

"$DTRACE" -q -x aggsize=8 -n 'BEGIN { @ = count(); exit(0); }' >out 2>err
check aggsize $? out err

# an int key and an int value take 16 bytes: 15 hold none.  DTrace runs,
# and every store is a dynamic variable drop, which it reports.
drops() {	# drops NAME N D-PROGRAM DTRACE-ARGS...
	local name=$1 n=$2 prog=$3
	shift 3
	"$DTRACE" -q "$@" -n "$prog" >out 2>err
	local rc=$?
	if [ $rc != 0 ] || [ "$(cat out)" != "0" ] ||
	   ! grep -qx "dtrace: $n dynamic variable drops\{0,1\}" err; then
		echo "$name: exit $rc, stdout:"; cat out; echo "stderr:"; cat err
		status=1
	fi
}
drops "dynvarsize, associative array" 2 \
	'BEGIN { a[1] = 1; a[2] = 2; printf("%d\n", a[1]); exit(0); }' \
	-x dynvarsize=15
drops "dynvarsize, thread-local" 1 \
	'BEGIN { self->x = 1; printf("%d\n", self->x); exit(0); }' \
	-x dynvarsize=5
drops "dynvarsize, strings" 1 \
	'BEGIN { s["k"] = "v"; printf("%d\n", s["k"] == NULL ? 0 : 1); exit(0); }' \
	-x dynvarsize=300

# what fits runs
"$DTRACE" -q -x dynvarsize=16 -n 'BEGIN { a[1] = 7; printf("%d\n", a[1]);
	exit(0); }' >out 2>err
if [ $? != 0 ] || [ "$(cat out)" != "7" ]; then
	echo "dynvarsize 16: exit $?"; cat out err; status=1
fi
"$DTRACE" -q -x bufsize=64 -n 'BEGIN { printf("%d\n", 1); exit(0); }' \
	>out 2>err
if [ $? != 0 ] || [ "$(cat out)" != "1" ]; then
	echo "small record: exit $?"; cat out err; status=1
fi
exit $status
