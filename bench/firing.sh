#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/firing.sh: cost per firing of a pid entry probe (issues 3 and 6).
#
# test/progs/bench_loop calls bench_fn(i) N times (default 2,000,000) and
# times its own loop.  The loop runs untraced, under the kernel floor (a
# bare uprobe with an empty BPF program, bench/uprobe_floor.c), under dtrace
# with an empty clause and with three aggregating clauses, and under
# bpftrace's uprobe when installed.  Each configuration runs RUNS times
# (default 3); the median loop time gives the cost per firing above the
# untraced loop, and its ratio to the bare uprobe's cost, all measured in
# this one run.
#
#   sudo bench/firing.sh [N [RUNS]]          (B=build-dir, default build/)
#
# Exit status 0; 2 when something it needs is missing.  A configuration
# that fails prints "not available" with the tool's first error line.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=${1:-2000000}
RUNS=${2:-3}
firing_setup

BASE=$(firing_loop_ns bench_loop calls "$LOOP" "$N")
BARE=
printf 'per firing of bench_fn (%d calls, median of %d runs)\n' "$N" "$RUNS"
printf 'untraced loop: %.2f ns per call\n\n' "$(awk -v t="$BASE" -v n="$N" \
	'BEGIN { print t / n }')"
printf '%-44s %12s %10s\n' "configuration" "ns/firing" "x bare"

firing_row "bare uprobe, empty BPF program" bench_loop calls \
	"$FLOOR" run "$LOOP" bench_fn -- "$LOOP" "$N"
for clause in '{ }' '/arg0 < 0/ { }' '{ @ = count(); }' '{ @[probefunc] = count(); }' \
	'{ @ = quantize(arg0); }'; do
	firing_row "dtrace $clause" bench_loop calls "$DTRACE" -q \
		-n "pid\$target:a.out:bench_fn:entry $clause" -c "$LOOP $N"
done
if have_bpftrace; then
	for clause in '{ }' '{ @ = count(); }'; do
		firing_row "bpftrace $clause" bench_loop calls bpftrace \
			-e "uprobe:$LOOP:bench_fn $clause" -c "$LOOP $N"
	done
else
	echo "bpftrace is not installed: no comparison"
fi
echo
echo "An empty clause in D records a firing (the default action), which"
echo "the consumer reads; /arg0 < 0/ { } is the dispatch alone."
exit 0
