# SPDX-License-Identifier: MIT
# status_lib.sh: sourced by the shell tests that check dtrace's exit
# status and look for lines in its output (files out and err); a
# mismatch marks the test failed (status=1, test_lib.sh), which ends with
# `exit $status`.

# check NAME EXPECTED ACTUAL: the exit status
check() {
	if [ "$2" != "$3" ]; then
		echo "$1: exit status $3, expected $2"; cat err
		status=1
	fi
}
# has NAME FILE REGEX: a line of FILE matches
has() {
	if ! grep -q -- "$3" "$2"; then
		echo "$1: '$3' not found in:"; sed 's/^/    /' "$2" | head -20
		status=1
	fi
}
# lines NAME FILE N: FILE has N lines
lines() {
	if [ "$(wc -l < "$2")" != "$3" ]; then
		echo "$1: expected $3 lines in:"; sed 's/^/    /' "$2"
		status=1
	fi
}
