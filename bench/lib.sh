# SPDX-License-Identifier: MIT
# bench/lib.sh: shared set-up of the benchmark scripts (sourced, not run).
#
# Sets ROOT (source tree), B (build directory, from $B, default build/),
# DTRACE, PROGS (the programs of test/progs, built by make), FLOOR (the
# bench/uprobe_floor.c helper, compiled here into $B/bench/ when missing or
# older than its source), and exports DTRACE_PLUGIN_PATH.  Helpers:
#   need_root, need_dtrace, have_bpftrace, median, now_us, fmt_ratio, and
#   firing_setup, firing_loop_ns and firing_row for the firing tables
#   (below).
# Nothing here is timed; each script prints its own figures.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${B:-build}
[ "${B#/}" = "$B" ] && B=$ROOT/$B
DTRACE=$B/dtrace
PROGS=$B/test/progs
FLOOR=$B/bench/uprobe_floor
export DTRACE_PLUGIN_PATH=$B/plugins

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "bench: needs root (BPF)" >&2
		exit 2
	fi
}

# need_dtrace PROG...: the dtrace command and the named test programs.
need_dtrace() {
	local p
	if [ ! -x "$DTRACE" ]; then
		echo "bench: $DTRACE does not exist: run make first" >&2
		exit 2
	fi
	for p in "$@"; do
		if [ ! -x "$PROGS/$p" ]; then
			echo "bench: $PROGS/$p does not exist: run make" \
				"test-programs first" >&2
			exit 2
		fi
	done
}

# build_floor: compile the kernel-floor helper when needed.
build_floor() {
	local src=$ROOT/bench/uprobe_floor.c
	if [ ! -x "$FLOOR" ] || [ "$src" -nt "$FLOOR" ]; then
		mkdir -p "$(dirname "$FLOOR")"
		if ! ${CC:-cc} -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra \
			-o "$FLOOR" "$src" -lelf -lpthread; then
			echo "bench: cannot build $FLOOR" >&2
			exit 2
		fi
	fi
}

have_bpftrace() {
	command -v bpftrace >/dev/null 2>&1
}

# median of the numbers on stdin, one a line ("nan" when there are none)
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# now_us: the wall clock in microseconds, without a fork (bash 5).
now_us() {
	local t=${EPOCHREALTIME/[.,]/}
	echo "$t"
}

# fmt_ratio A B: A / B with one decimal, "-" when either is not a number or
# B is zero.
fmt_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "" || b == "" || a == "-" || b == "-" || b + 0 == 0)
			print "-"
		else
			printf "%.1f", a / b }'
}

# The firing tables of firing.sh and usdt_firing.sh.  A measured program
# prints a line "PROG N WORD T": T ns for N iterations of its loop.  Both
# use W (a scratch directory), RUNS, N, BASE (the untraced loop's time) and
# BARE (the first row's ns per firing, "" before it, "-" for no ratios).

# firing_setup: what a firing table of bench_loop needs: root, dtrace, the
# test programs and the kernel floor; sets LOOP (bench_loop) and W (a
# scratch directory removed at exit).
firing_setup() {
	need_root
	need_dtrace bench_loop
	build_floor
	LOOP=$PROGS/bench_loop
	W=$(mktemp -d)
	trap 'rm -rf "$W"' EXIT
}

# firing_loop_ns PROG WORD CMD...: the median T of RUNS runs of CMD; empty
# when a run fails, with its error in $W/err.
firing_loop_ns() {
	local prog=$1 word=$2 i t rc
	shift 2
	: >"$W/times"
	for ((i = 0; i < RUNS; i++)); do
		"$@" >"$W/out" 2>"$W/err" </dev/null
		rc=$?
		t=$(awk -v p="$prog" -v w="$word" '$1 == p && $3 == w { print $4 }' \
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

# firing_row LABEL PROG WORD CMD...: one line of the table: ns per firing
# above the untraced loop and its ratio to the first row's; "not available"
# with the tool's first error line when CMD fails.
firing_row() {
	local label=$1 t ns
	shift
	t=$(firing_loop_ns "$@")
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
