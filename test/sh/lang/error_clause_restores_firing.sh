#!/bin/bash
# SPDX-License-Identifier: MIT
# The ERROR clauses run in the middle of a firing, with ERROR's probe id and
# arguments; the firing's later clauses then run with their own again: a
# later fault names its own probe, output without -q is labelled with it,
# and arg0..arg5 (which ERROR's arguments take the place of) read the
# probe's own values.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget

# Two faults in one BEGIN firing, the ERROR clause between them.  Oracle
# DTrace: "dtrace: error in dt_clause_1 for probe ID 1 (dtrace:::BEGIN):
# divide-by-zero at BPF pc N".
"$DTRACE" -n 'BEGIN { x = 0; trace(1 / x); }' -n 'BEGIN { trace(2 / x); }' \
	-n 'ERROR { trace(arg1); }' -n 'BEGIN { trace(3); exit(0); }' \
	>out 2>err
rc=$?
actual=$(sed -E -e 's/^ {0,2}[0-9]{1,3} /  N /' -e '/^$/d' out)
expected=$(printf '%s\n' \
	'CPU     ID                    FUNCTION:NAME' \
	'  N      3                           :ERROR                    1' \
	'  N      3                           :ERROR                    2' \
	'  N      1                           :BEGIN           3')
errors=$(grep '^dtrace: error' err | sed -e 's/BPF pc [0-9]*$/BPF pc N/')
expected_errors='dtrace: error in dt_clause_0 for probe ID 1 (dtrace:::BEGIN): divide-by-zero at BPF pc N
dtrace: error in dt_clause_1 for probe ID 1 (dtrace:::BEGIN): divide-by-zero at BPF pc N'
if [ $rc != 0 ] || [ "$actual" != "$expected" ] ||
   [ "$errors" != "$expected_errors" ]; then
	echo "two faults in BEGIN: exit $rc, stdout:"; cat out
	echo "stderr:"; cat err
	echo "expected stdout (N: any CPU):"; echo "$expected"
	echo "expected errors:"; echo "$expected_errors"
	status=1
fi

# A pid probe with eight arguments: sum8(1, 2, 3, 4, 5, 6, 7, 8).  Its
# first clause faults; its second, after the ERROR clause, reads them.
"$DTRACE" -q -c "$T 1" -n '
pid$target:a.out:sum8:entry { x = 0; y = 1 / x; }
ERROR { printf("ERROR epid %d fault %d %s:%s\n", arg1, arg4, probeprov,
	       probename); }
pid$target:a.out:sum8:entry
{
	printf("%s:%s %s: %d %d %d %d %d %d %d %d\n", probefunc, probename,
	    id == 3 ? "ERROR id" : "own id", arg0, arg1, arg2, arg3, arg4,
	    arg5, args[6], args[7]);
	exit(0);
}' >out 2>err
rc=$?
actual=$(grep -v -e '^done' -e '^$' out)
expected='ERROR epid 1 fault 4 dtrace:ERROR
sum8:entry own id: 1 2 3 4 5 6 7 8'
if [ $rc != 0 ] || [ "$actual" != "$expected" ] ||
   ! grep -Eq '^dtrace: error in dt_clause_0 for probe ID [0-9]+ \(pid[0-9]+:a\.out:sum8:entry\): divide-by-zero at BPF pc [0-9]+$' err; then
	echo "pid probe after ERROR: exit $rc, stdout:"; cat out
	echo "stderr:"; cat err
	echo "expected:"; echo "$expected"
	status=1
fi
exit $status
