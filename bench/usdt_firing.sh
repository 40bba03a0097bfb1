#!/bin/bash
# bench/usdt_firing.sh: cost per firing of a <sys/sdt.h> probe (issues 4
# and 5).
#
# test/progs/bench_usdt fires bench:tick N times (default 2,000,000) in a
# tight loop; test/progs/bench_usdt_sem fires bench_sem:tick, guarded by its
# semaphore, which a tracer raises.  Each program times its own loop.  Each
# runs untraced, under the kernel floor (bench/uprobe_floor.c: a bare
# uprobe with an empty BPF program on the same site, raising the semaphore
# through the link's reference counter), under dtrace's usdt provider with
# an empty clause, and under bpftrace's usdt: when installed.  Medians of
# RUNS runs (default 3): ns per firing above the untraced loop and the ratio
# to the bare uprobe, measured in this one run.
#
#   sudo bench/usdt_firing.sh [N [RUNS]]     (B=build-dir, default build/)
#
# When dtrace's usdt provider does not work, its rows say "not available"
# and the rest goes on.  Exit status 0; 2 when something is missing.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=${1:-2000000}
RUNS=${2:-3}
need_root
need_dtrace bench_usdt bench_usdt_sem
build_floor
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# loop_ns PROG CMD...: the median loop time (ns) of RUNS runs of CMD,
# read from PROG's "PROG N firings T ns" line; empty when a run fails,
# with its error in $W/err.
loop_ns() {
	local prog=$1 i t rc
	shift
	: >"$W/times"
	for ((i = 0; i < RUNS; i++)); do
		"$@" >"$W/out" 2>"$W/err" </dev/null
		rc=$?
		t=$(awk -v p="$prog" '$1 == p && $3 == "firings" { print $4 }' \
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

# row LABEL PROG CMD...: one line of the table; the first row of a table
# is the bare uprobe, which the others are compared with.
row() {
	local label=$1 prog=$2 t ns
	shift 2
	t=$(loop_ns "$prog" "$@")
	if [ -z "$t" ]; then
		printf '%-44s not available: %s\n' "$label" \
			"$(grep -v RLIMIT_MEMLOCK "$W/err" | head -n 1)"
		return
	fi
	ns=$(awk -v t="$t" -v b="$BASE" -v n="$N" \
		'BEGIN { printf "%.1f", (t - b) / n }')
	[ -z "$BARE" ] && BARE=$ns
	printf '%-44s %12s %10s\n' "$label" "$ns" "$(fmt_ratio "$ns" "$BARE")"
}

# table PROG PROVIDER: the rows for one program and its probe PROVIDER:tick.
table() {
	local prog=$1 prov=$2 bin=$PROGS/$1
	BASE=$(loop_ns "$prog" "$bin" "$N")
	BARE=
	echo
	printf '%s:tick in %s (%d firings, median of %d runs)\n' "$prov" \
		"$prog" "$N" "$RUNS"
	printf 'untraced loop: %.2f ns per iteration\n' "$(awk -v t="$BASE" \
		-v n="$N" 'BEGIN { print t / n }')"
	printf '%-44s %12s %10s\n' "configuration" "ns/firing" "x bare"
	row "bare uprobe, empty BPF program" "$prog" "$FLOOR" run "$bin" \
		"sdt:$prov:tick" -- "$bin" "$N"
	if [ -z "$BARE" ]; then
		echo "(no bare uprobe figure: ratios are not shown)"
		BARE=-
	fi
	row "dtrace $prov\$target:::tick { }" "$prog" "$DTRACE" -q \
		-n "$prov\$target:::tick { }" -c "$bin $N"
	row "dtrace $prov\$target:::tick /arg0 < 0/ { }" "$prog" "$DTRACE" \
		-q -n "$prov\$target:::tick /arg0 < 0/ { }" -c "$bin $N"
	if have_bpftrace; then
		row "bpftrace usdt:...:$prov:tick { }" "$prog" bpftrace \
			-e "usdt:$bin:$prov:tick { }" -c "$bin $N"
	fi
}

table bench_usdt bench
table bench_usdt_sem bench_sem
have_bpftrace || echo "bpftrace is not installed: no comparison"
echo
echo "An empty clause in D records a firing (the default action), which"
echo "the consumer reads; /arg0 < 0/ { } is the dispatch alone."
exit 0
