#!/bin/bash
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
need_root
need_dtrace bench_loop
build_floor
LOOP=$PROGS/bench_loop
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# loop_ns CMD...: the median loop time, in ns, of RUNS runs of CMD (which
# runs bench_loop); empty when a run fails, with its error in $W/err.
loop_ns() {
	local i t rc
	: >"$W/times"
	for ((i = 0; i < RUNS; i++)); do
		"$@" >"$W/out" 2>"$W/err" </dev/null
		rc=$?
		t=$(awk '$1 == "bench_loop" && $3 == "calls" { print $4 }' \
			"$W/out")
		if [ -z "$t" ]; then
			[ -s "$W/err" ] || tail -n 3 "$W/out" >"$W/err"
			[ -s "$W/err" ] || echo "exit status $rc" >"$W/err"
			return
		fi
		echo "$t" >>"$W/times"
	done
	median <"$W/times"
}

BASE=$(loop_ns "$LOOP" "$N")
BARE=
printf 'per firing of bench_fn (%d calls, median of %d runs)\n' "$N" "$RUNS"
printf 'untraced loop: %.2f ns per call\n\n' "$(awk -v t="$BASE" -v n="$N" \
	'BEGIN { print t / n }')"
printf '%-44s %12s %10s\n' "configuration" "ns/firing" "x bare"

# row LABEL CMD...: one line of the table.
row() {
	local label=$1 t ns
	shift
	t=$(loop_ns "$@")
	if [ -z "$t" ]; then
		printf '%-44s not available: %s\n' "$label" \
			"$(head -n 1 "$W/err")"
		return
	fi
	ns=$(awk -v t="$t" -v b="$BASE" -v n="$N" \
		'BEGIN { printf "%.1f", (t - b) / n }')
	[ -z "$BARE" ] && BARE=$ns
	printf '%-44s %12s %10s\n' "$label" "$ns" "$(fmt_ratio "$ns" "$BARE")"
}

row "bare uprobe, empty BPF program" "$FLOOR" run "$LOOP" bench_fn -- \
	"$LOOP" "$N"
for clause in '{ }' '/arg0 < 0/ { }' '{ @ = count(); }' '{ @[probefunc] = count(); }' \
	'{ @ = quantize(arg0); }'; do
	row "dtrace $clause" "$DTRACE" -q \
		-n "pid\$target:a.out:bench_fn:entry $clause" -c "$LOOP $N"
done
if have_bpftrace; then
	for clause in '{ }' '{ @ = count(); }'; do
		row "bpftrace $clause" bpftrace \
			-e "uprobe:$LOOP:bench_fn $clause" -c "$LOOP $N"
	done
else
	echo "bpftrace is not installed: no comparison"
fi
echo
echo "An empty clause in D records a firing (the default action), which"
echo "the consumer reads; /arg0 < 0/ { } is the dispatch alone."
exit 0
