#!/bin/bash
# SPDX-License-Identifier: MIT
# Speculations' reports, DTrace's way: speculation() with none free
# returns 0 and counts a failed speculation; a record past specsize is a
# speculative drop (the records before it are committed); nspec out of
# range is refused.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace

"$DTRACE" -q -x nspec=1 -n 'BEGIN { a = speculation(); b = speculation();
	printf("%d %d\n", a, b); exit(0); }' >out 2>err
[ "$(cat out)" = "1 0" ] || { echo "FAIL nspec=1:"; cat out; status=1; }
grep -qx "dtrace: 1 failed speculation (no speculative buffer available)" \
	err || { echo "FAIL failed speculation report:"; cat err; status=1; }

# a record of this clause is 16 bytes of header, 8 of data: 48 bytes hold
# two, the third is dropped
"$DTRACE" -q -x specsize=48 -n 'BEGIN { s = speculation(); }
	BEGIN { speculate(s); trace(1); } BEGIN { speculate(s); trace(2); }
	BEGIN { speculate(s); trace(3); } BEGIN { commit(s); } BEGIN { exit(0); }' \
	>out 2>err
[ "$(tr -d ' \n' < out)" = "12" ] || { echo "FAIL specsize:"; cat out; status=1; }
grep -qx "dtrace: 1 speculative drop" err ||
	{ echo "FAIL speculative drop report:"; cat err; status=1; }

for v in 0 65; do
	"$DTRACE" -x nspec=$v -n BEGIN >out 2>err &&
		{ echo "FAIL nspec=$v accepted"; status=1; }
done
exit $status
