#!/bin/bash
# SPDX-License-Identifier: MIT
# The dtrace provider seen from outside: its probes in dtrace -l (ids 1-3,
# DTrace's column layout) and the message a run-time fault prints on stderr
# while tracing goes on.
. "$TESTDIR/sh/lib/test_lib.sh"
[ -x "$DTRACE" ] || { echo "no $DTRACE"; exit 1; }

expected=$(printf '%5s %10s %17s %33s %s\n' ID PROVIDER MODULE FUNCTION NAME
	   printf '%5d %10s %17s %33s %s\n' 1 dtrace '' '' BEGIN 2 dtrace '' '' END \
		  3 dtrace '' '' ERROR)
actual=$("$DTRACE" -l -n 'dtrace:::' 2>err)
if [ "$actual" != "$expected" ]; then
	echo "dtrace -l -n dtrace::: printed:"; echo "$actual"; cat err
	echo "expected:"; echo "$expected"
	status=1
fi

"$DTRACE" -q -n 'BEGIN { x = 0; printf("%d\n", 1 / x); }' \
	-n 'BEGIN { printf("after\n"); exit(0); }' >out 2>err
rc=$?
if [ $rc != 0 ] || ! grep -qx after out; then
	echo "divide by zero: exit $rc, stdout:"; cat out; cat err
	status=1
fi
# Oracle DTrace: "dtrace: error in dt_clause_N for probe ID 1
# (dtrace:::BEGIN): divide-by-zero at BPF pc M".
if ! grep -Eq '^dtrace: error in dt_clause_[0-9]+ for probe ID 1 \(dtrace:::BEGIN\): divide-by-zero at BPF pc [0-9]+$' err; then
	echo "divide by zero: no error message on stderr:"; cat err
	status=1
fi
exit $status
