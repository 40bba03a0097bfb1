#!/bin/bash
# SPDX-License-Identifier: MIT
# clear() of a max() (or min()) kept in a hash of CPU slots runs the
# consumer's zeroing program (dt_agg_clear.c, dt_aggzero): it is built with the
# one assembler and loaded through the session's loader before tracing,
# so -S shows it like the clauses' programs, naming the map it zeroes;
# clear() then empties the aggregation.  A program without clear() loads
# none, nor does one that clears only a count(), which subtracts.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$DTRACE" -q -S -n 'BEGIN { @a[1] = max(4); @a[2] = max(5); clear(@a);
	printa("%d %@d\n", @a); exit(0); }' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "clear: exit status $rc"; sed 's/^/    /' "$tmp/err" | head -20
	exit 1
fi
if ! grep -q '^dt_aggzero program of map agg_a ([0-9]* insns):$' "$tmp/err"; then
	echo "-S does not show the zeroing program:"
	grep -i aggzero "$tmp/err" | head; status=1
elif ! grep -A12 '^dt_aggzero program' "$tmp/err" |
	grep -q 'call bpf_for_each_map_elem'; then
	echo "the zeroing program shown is not disassembled:"
	grep -A12 '^dt_aggzero program' "$tmp/err"; status=1
fi
if [ "$(cat "$tmp/out")" != "$(printf '1 0\n2 0')" ]; then
	echo "clear() did not zero the entries:"; cat "$tmp/out"; status=1
fi

"$DTRACE" -q -S -n 'BEGIN { @a[1] = count(); exit(0); }' \
	>"$tmp/out" 2>"$tmp/err"
if grep -q "^dt_aggzero program" "$tmp/err"; then
	echo "a program without clear() loads the zeroing program"; status=1
fi
"$DTRACE" -q -S -n 'BEGIN { @a[1] = count(); clear(@a); exit(0); }' \
	>"$tmp/out" 2>"$tmp/err"
if grep -q "^dt_aggzero program" "$tmp/err"; then
	echo "clear() of a count() loads the zeroing program"; status=1
fi
exit $status
