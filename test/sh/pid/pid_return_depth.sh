#!/bin/bash
# SPDX-License-Identifier: MIT
# The kernel keeps at most 64 pending return probes per thread: the return
# of a call made deeper fires nothing.  Those firings are counted and
# reported as drops are, "dtrace: N return probe firings lost: ..." (once
# per reading of the counters, so the lines are summed), with both uprobe
# mechanisms: every entry of a function that returns is its return's
# firing or one counted lost.  Before, a 1,000-deep recursion showed 1,001
# entries and 64 returns without a word.  A recursion shallower than the
# limit loses nothing and says nothing.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog recurse

counts='pid$target:a.out:down:entry { @e = count(); }
pid$target:a.out:down:return { @r = count(); }
END { printa("entries %@d\n", @e); printa("returns %@d\n", @r); }'
lost() {
	grep -Eo '^dtrace: [0-9]+ return probe firings? lost' err |
		awk '{ s += $2 } END { print s + 0 }'
}

# run WHAT DEPTH REPEAT DTRACE-ARGS...: entries, returns and lost firings
# of down() account for each other.
run() {
	local what=$1 depth=$2 repeat=$3 e r l
	shift 3
	"$DTRACE" -q "$@" -n "$counts" -c "$T $depth $repeat" >out 2>err
	rc=$?
	[ $rc = 0 ] || fail_run "$what: dtrace failed"
	grep -qx "done $((depth * repeat))" out ||
		fail_run "$what: the program computed something else"
	grep -q "will not be counted" err && fail_run "$what: not counted"
	e=$(awk '$1 == "entries" { print $2 }' out)
	r=$(awk '$1 == "returns" { print $2 }' out)
	l=$(lost)
	[ "$e" = $(((depth + 1) * repeat)) ] ||
		fail_run "$what: $e entries, not $(((depth + 1) * repeat))"
	[ $((r + l)) = "$e" ] ||
		fail_run "$what: $r returns + $l lost != $e entries"
	echo "$l"
}

l=$(run "1000 deep" 1000 3) || { echo "$l"; exit 1; }
[ "$l" -gt 0 ] || { echo "1000 deep: no firing reported lost"; exit 1; }
l=$(run "1000 deep, perf uprobes" 1000 3 -x uprobe=perf) ||
	{ echo "$l"; exit 1; }
[ "$l" -gt 0 ] || { echo "perf uprobes: no firing reported lost"; exit 1; }
# main's return pending too: one more lost per recursion.
l=$(run "1000 deep under main" 1000 3 \
	-n 'pid$target:a.out:main:return { }') || { echo "$l"; exit 1; }
[ "$l" -gt 0 ] || { echo "under main: no firing reported lost"; exit 1; }
l=$(run "50 deep" 50 3) || { echo "$l"; exit 1; }
[ "$l" = 0 ] || { echo "50 deep: $l firings reported lost"; exit 1; }
exit 0
