# SPDX-License-Identifier: MIT
# fault_lib.sh: sourced by the shell tests of run-time errors (faults),
# after test_lib.sh; a mismatch marks the test failed (status=1), which
# ends with `exit $status`.

# fault NAME PROGRAM STDOUT ERROR [DTRACE-OPTION...]: PROGRAM runs with
# a global `uint64_t base` declared and an ERROR clause that prints
# "ERROR fault KIND at base+OFFSET" (arg4; arg5, the fault's address, as
# an offset from base) and calls exit(0).  It must print STDOUT, and
# ERROR on stderr (DTrace's error line, kernel addresses written ADDR and
# the BPF pc N), and end with status 0: the fault ran the ERROR clause,
# whose exit() ended the session.  A session that goes on fails after
# 10 s.
fault() {
	local name=$1 prog=$2 want_out=$3 want_err=$4 out err
	shift 4
	printf 'uint64_t base;\n%s\nERROR { printf("ERROR fault %%d at base%%+d\\n", arg4, (int64_t)(arg5 - base)); exit(0); }\n' \
		"$prog" >prog.d
	timeout 10 "$DTRACE" -q "$@" -s prog.d >out 2>err
	rc=$?
	out=$(grep -v '^$' out)
	err=$(sed -E 's/\(0x[0-9a-f]{9,}\)/(ADDR)/; s/BPF pc [0-9]+$/BPF pc N/' err)
	if [ $rc != 0 ] || [ "$out" != "$want_out" ] ||
	   [ "$err" != "$want_err" ]; then
		fail "$name: exit $rc"
		echo "stdout:"; cat out; echo "stderr:"; cat err
		echo "expected stdout:"; echo "$want_out"
		echo "expected stderr:"; echo "$want_err"
	fi
}

# fault_line N PROBE WHAT: Oracle DTrace's error line for a fault WHAT
# ("illegal operation", "invalid address (ADDR)") in the Nth clause of the
# session (dt_clause_N-1), in a firing of PROBE (dtrace:::BEGIN is ID 1).
fault_line() {
	local prid=1
	[ "$2" = dtrace:::END ] && prid=2
	echo "dtrace: error in dt_clause_$(($1 - 1)) for probe ID $prid ($2): $3 at BPF pc N"
}
