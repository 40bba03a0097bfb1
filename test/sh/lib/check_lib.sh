# SPDX-License-Identifier: MIT
# check_lib.sh: sourced by the shell tests that match dtrace's text output
# against a pattern and check that bad scripts are refused; a mismatch
# marks the test failed (status=1, test_lib.sh), which ends with
# `exit $status`.

# check NAME ACTUAL REGEX: ACTUAL, its newlines turned into '|', must match
# the extended regex REGEX whole; a mismatch is shown with the stderr of
# the run (file err) and marks the test failed.
check() {
	if ! printf '%s\n' "$2" | tr '\n' '|' | grep -Eqx "$3"; then
		echo "FAIL $1: got:"; printf '%s\n' "$2"
		echo "expected (| = newline): $3"
		echo "stderr:"; cat err
		status=1
	fi
}

# refused STATEMENT...: each, in a BEGIN clause, must fail to compile.
refused() {
	local s
	for s in "$@"; do
		if "$DTRACE" -e -n "BEGIN { x = 1; $s; }" >out 2>err; then
			echo "FAIL: '$s' was accepted"; status=1
		fi
		grep -q 'invalid probe specifier' err ||
			{ echo "FAIL '$s':"; cat err; status=1; }
	done
}

# want NAME SCRIPT EXPECTED-STDERR: the script, written to a file x.d,
# fails to compile (exit 1) with exactly that stderr, under -x errtags.
want() {
	printf '%s' "$2" >x.d
	"$DTRACE" -x errtags -s x.d >out 2>err
	rc=$?
	if [ $rc != 1 ] || [ "$(cat err)" != "$3" ]; then
		echo "$1: exit $rc, stderr:"; cat err
		echo "wanted:"; printf '%s\n' "$3"
		status=1
	fi
}
