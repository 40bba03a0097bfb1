#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/aggsnap.sh: the consumer's time to snapshot and print an
# aggregation with K keys (default 100,000) at exit (issue 3).
#
# test/progs/bench_loop calls bench_fn(i) for i = 0 .. K-1 and prints the
# wall clock just before it exits.  dtrace runs it with
#     pid$target:a.out:bench_fn:entry { @[arg0] = count(); }
# and prints the K lines at exit; the time from the target's exit to
# dtrace's exit covers noticing the exit, END, the snapshot, sorting,
# printing and the teardown.  The same with @ = count() (one key) gives the
# part that does not depend on the keys; the difference is the cost of the
# K keys.  Output goes to a file (tmpfs or disk: $TMPDIR).  Medians of RUNS
# runs (default 3).  The printed line count is checked, and drops reported.
#
#   sudo bench/aggsnap.sh [K [RUNS]]        (B=build-dir, default build/)
#
# Exit status 0, 1 when dtrace fails or loses keys, 2 when something is
# missing.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
K=${1:-100000}
RUNS=${2:-3}
need_root
need_dtrace bench_loop
LOOP=$PROGS/bench_loop
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# exit_ms CLAUSE: median ms from the target's exit to dtrace's exit; the
# number of output lines holding a number pair in the last run goes to
# $W/lines.
exit_ms() {
	local i tend e rc
	: >"$W/ms"
	for ((i = 0; i < RUNS; i++)); do
		"$DTRACE" -q -x aggsize=64m \
			-n "pid\$target:a.out:bench_fn:entry $1" \
			-c "$LOOP $K" >"$W/out" 2>"$W/err" </dev/null
		rc=$?
		tend=$(now_us)
		e=$(awk '$1 == "bench_loop" { print $NF }' "$W/out")
		if [ "$rc" != 0 ] || [ -z "$e" ]; then
			echo "bench: dtrace failed (exit status $rc):" >&2
			head -n 5 "$W/err" >&2
			exit 1
		fi
		awk -v t="$tend" -v e="$e" \
			'BEGIN { printf "%.3f\n", (t * 1000 - e) / 1e6 }' \
			>>"$W/ms"
	done
	awk 'NF == 2 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' "$W/out" |
		wc -l >"$W/lines"
	if grep -q drop "$W/err"; then
		echo "dtrace reported: $(grep drop "$W/err" | head -n 1)"
	fi
	median <"$W/ms"
}

ONE=$(exit_ms '{ @ = count(); }')
MANY=$(exit_ms '{ @[arg0] = count(); }')
status=0
printf 'aggregation snapshot at exit (median of %d runs)\n' "$RUNS"
printf '%-40s %10s\n' "" "ms"
printf '%-40s %10.1f\n' "target exit to dtrace exit, 1 key" "$ONE"
printf '%-40s %10.1f\n' "target exit to dtrace exit, $K keys" "$MANY"
printf '%-40s %10.1f   (%.2f us per key)\n' "snapshot and print of $K keys" \
	"$(awk -v a="$MANY" -v b="$ONE" 'BEGIN { print a - b }')" \
	"$(awk -v a="$MANY" -v b="$ONE" -v k="$K" \
		'BEGIN { print (a - b) * 1000 / k }')"
LINES=$(cat "$W/lines")
if [ "$LINES" != "$K" ]; then
	echo "dtrace printed $LINES keys of $K"
	status=1
fi
exit $status
