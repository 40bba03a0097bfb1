#!/bin/bash
# SPDX-License-Identifier: MIT
# A bufsize too small for what a clause records, an aggsize too small for
# one entry of an aggregation, or a dynvarsize too small for one element of
# a dynamic variable, is refused at start as DTrace refuses it.
set -u
[ -x "$DTRACE" ] || exit 77
status=0

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

# an int key and an int value take 16 bytes: 15 hold none
"$DTRACE" -q -x dynvarsize=15 -n 'BEGIN { a[1] = 1; exit(0); }' >out 2>err
check "dynvarsize, associative array" $? out err
"$DTRACE" -q -x dynvarsize=15 -n 'BEGIN { self->x = 1; exit(0); }' >out 2>err
check "dynvarsize, thread-local" $? out err
"$DTRACE" -q -x dynvarsize=300 -n 'BEGIN { s["k"] = "v"; exit(0); }' >out 2>err
check "dynvarsize, strings" $? out err

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
