#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 180
# clear() loses no firing and counts none twice: two threads fire a
# function (hammer2) while a tick prints and clears (in one clause, then
# in two), every 10 ms, a count() and a sum() with a key (a hash of CPU
# slots) and a count() without (the mstates); the counts printed over the
# ticks and at the end add up to the calls the program made
# (test/d/agg/tst.clear-keys.d: the keys a clear() keeps, and what it
# does to every function).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog hammer2

# The tick's printa() and clear() in one clause, then in two.
one='tick-10ms {
	printa("k %@d\n", @k); printa("n %@d\n", @n); printa("s %@d\n", @s);
	clear(@k); clear(@n); clear(@s);
}'
two='tick-10ms {
	printa("k %@d\n", @k); printa("n %@d\n", @n); printa("s %@d\n", @s);
}
tick-10ms { clear(@k); clear(@n); clear(@s); }'
for ticks in "$one" "$two"; do
"$DTRACE" -q -c "$T 100000" -n '
pid$target::hammer_fn:entry {
	@k[probefunc] = count(); @n = count(); @s[probefunc] = sum(2);
}'"$ticks"'
END { printa("k %@d\n", @k); printa("n %@d\n", @n); printa("s %@d\n", @s); }' \
	>out 2>err
rc=$?
[ $rc = 0 ] && grep -q '^hammer2 200000 calls$' out ||
	fail_run "hammer2 under clear()"
sums=$(awk '$1 == "k" { k += $2; if ($2 > 0) t++ } $1 == "n" { n += $2 }
	$1 == "s" { s += $2 }
	END { printf "k %d n %d s %d ticks %d\n", k, n, s / 2, (t > 2) }' out)
[ "$sums" = "k 200000 n 200000 s 200000 ticks 1" ] ||
	fail "counted over the ticks: $sums (expected 200000 each, firings in more than 2 ticks)"
done

exit $status
