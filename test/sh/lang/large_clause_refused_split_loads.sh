#!/bin/bash
# SPDX-License-Identifier: MIT
# A clause whose code is longer than a BPF jump reaches is refused with a
# clear reason (D_CLAUSE_SIZE, naming its line); the same statements split
# into several clauses load and run, the globals past the first 32 KB
# (beyond an instruction's offset) included.  Thousands of global declarations
# and enumerators compile (their lookups are no longer list walks).
# A clause looks the globals up once, so an assignment is three or four
# instructions: N is large enough for the one clause to outgrow a jump,
# and the split program, of more assignments than the verifier's 8192
# pending branches, loads because it leaves one per clause, not one per
# assignment ("The sequence of 8193 jumps is too complex" before).
# @timeout: 120
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
N=12000

{
	for ((i = 0; i < N; i++)); do echo "int g$i;"; done
	echo "enum big {"
	for ((i = 0; i < N; i++)); do echo "	E$i,"; done
	echo "};"
	echo "BEGIN {"
	for ((i = 0; i < N; i++)); do echo "	g$i = E$i;"; done
	echo "	exit(0);"
	echo "}"
} >one.d
"$DTRACE" -x errtags -q -s one.d >out 2>err
rc=$?
want="dtrace: failed to compile script one.d: \[D_CLAUSE_SIZE\] line $((2 * N + 3)): clause too large for BPF \(jump out of range: [0-9]+ instructions, a jump reaches 32767\); split it into several clauses"
if [ $rc != 1 ] || ! grep -qxE -- "$want" err; then
	echo "one clause of $N assignments: exit $rc (want 1), stderr:"
	cat err
	status=1
fi

{
	for ((i = 0; i < N; i++)); do echo "int g$i;"; done
	echo "enum big {"
	for ((i = 0; i < N; i++)); do echo "	E$i,"; done
	echo "};"
	for ((i = 0; i < N; i++)); do
		((i % 500 == 0)) && echo "BEGIN {"
		echo "	g$i = E$i;"
		((i % 500 == 499 || i == N - 1)) && echo "}"
	done
	echo "BEGIN { printf(\"%d %d\\n\", g0, g$((N - 1))); exit(0); }"
} >split.d
"$DTRACE" -q -s split.d >out 2>err
rc=$?
if [ $rc != 0 ] || [ "$(cat out)" != "0 $((N - 1))" ]; then
	echo "split into clauses of 500: exit $rc, stdout:"; cat out
	echo "stderr:"; cat err
	status=1
fi
exit $status
