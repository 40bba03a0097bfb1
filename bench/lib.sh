# SPDX-License-Identifier: MIT
# bench/lib.sh: shared set-up of the benchmark scripts (sourced, not run).
#
# Sets ROOT (source tree), B (build directory, from $B, default build/),
# DTRACE, PROGS (the programs of test/progs, built by make), FLOOR (the
# bench/uprobe_floor.c helper) and PROGSTAT (bench/progstat.c, the kernel's
# own figures of the time spent in BPF programs), both compiled here into
# $B/bench/ when missing or older than their source, and exports
# DTRACE_PLUGIN_PATH.  Helpers:
#   need_root, need_dtrace, have_bpftrace, median, now_us, fmt_ratio, and
#   firing_setup, firing_loop_ns, row, rows_run, firing_row, rows_cv and
#   below_or_noise for the firing tables (below).
# Nothing here is timed; each script prints its own figures.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${B:-build}
[ "${B#/}" = "$B" ] && B=$ROOT/$B
DTRACE=$B/dtrace
PROGS=$B/test/progs
FLOOR=$B/bench/uprobe_floor
PROGSTAT=$B/bench/progstat
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

# build_helper NAME LIBS...: compile bench/NAME.c into $B/bench/ when needed.
build_helper() {
	local src=$ROOT/bench/$1.c bin=$B/bench/$1
	shift
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		mkdir -p "$(dirname "$bin")"
		if ! ${CC:-cc} -std=gnu11 -O2 -D_GNU_SOURCE -Wall -Wextra \
			-o "$bin" "$src" "$@"; then
			echo "bench: cannot build $bin" >&2
			exit 2
		fi
	fi
}

# build_floor: compile the kernel-floor and program-time helpers.
build_floor() {
	build_helper uprobe_floor -lelf -lpthread
	build_helper progstat
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
# use W (a scratch directory), RUNS, N, BASE (the untraced loop's time),
# BARE (the first row's ns per firing, "" before it, "-" for no ratios) and
# PBARE (the first row's program time per firing).  Each command runs under
# progstat, which adds the time the kernel spent in its busiest BPF program
# ("progstat RUNS NS NAME"): the tracer's own share of a firing, measured
# by the kernel, steady where the loop's wall time swings with the
# machine's load.  Each row's figures are left in ROW_NS and ROW_PROG.

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

# loop_run TIMES PTIMES PROG WORD CMD...: one run of CMD, whose loop's T
# is appended to the file TIMES and its busiest BPF program's ns per run
# to PTIMES; status 1 when the run gave no T, with its error in $W/err.
loop_run() {
	local times=$1 ptimes=$2 prog=$3 word=$4 t rc
	shift 4
	"$PROGSTAT" -- "$@" >"$W/out" 2>"$W/err" </dev/null
	rc=$?
	t=$(awk -v p="$prog" -v w="$word" '$1 == p && $3 == w { print $4 }' \
		"$W/out")
	if [ -z "$t" ]; then
		[ -s "$W/err" ] || tail -n 3 "$W/out" >"$W/err"
		[ -s "$W/err" ] || echo "exit status $rc" >"$W/err"
		return 1
	fi
	echo "$t" >>"$times"
	awk '$1 == "progstat" && $2 > 0 { print $3 / $2 }' "$W/out" \
		>>"$ptimes"
}

# firing_loop_ns PROG WORD CMD...: the median T of RUNS runs of CMD; empty
# when a run fails, with its error in $W/err.
firing_loop_ns() {
	local i
	: >"$W/times"
	: >"$W/ptimes"
	for ((i = 0; i < RUNS; i++)); do
		loop_run "$W/times" "$W/ptimes" "$@" || return
	done
	median <"$W/times"
}

# prog_ns CMD...: the median over RUNS runs of the ns per run of CMD's
# busiest BPF program ("nan" when none ran).
prog_ns() {
	local i
	: >"$W/ptimes"
	for ((i = 0; i < RUNS; i++)); do
		"$PROGSTAT" -- "$@" 2>/dev/null </dev/null |
			awk '$1 == "progstat" && $2 > 0 { print $3 / $2 }' \
			>>"$W/ptimes"
	done
	median <"$W/ptimes"
}

# firing_header: the column names of firing_row.
firing_header() {
	printf '%-44s %10s %7s %9s %7s\n' "configuration" "ns/firing" \
		"x bare" "BPF ns" "+ns"
}

# The rows of a table are measured in rotated rounds: row LABEL PROG WORD
# CMD... registers one (its index in ROW_I), and rows_run runs each row
# registered since the last rows_run once a round, RUNS rounds, each round
# starting one row further, then prints them in order.  A drift of the
# machine's load over the minutes of a table then falls on every row
# alike, where runs of one row after another gave it to the rows measured
# last, and a goal that compares two rows compares runs taken side by
# side.  A row's line: ns per firing above the untraced loop and its
# ratio to the first row's, then the ns per firing spent in the BPF
# program and what that adds to the bare uprobe's empty program; "not
# available" with the tool's first error line when CMD failed.  Its
# figures are left in RNS[i] and RPROG[i], the last row's also in ROW_NS
# and ROW_PROG.  firing_row LABEL PROG WORD CMD... is a row run alone.
ROW_LABEL=() ROW_PNAME=() ROW_WORD=() ROW_CMD=() RNS=() RPROG=()
ROW_FIRST=0

row() {
	local cmd
	ROW_I=${#ROW_LABEL[@]}
	ROW_LABEL[ROW_I]=$1 ROW_PNAME[ROW_I]=$2 ROW_WORD[ROW_I]=$3
	shift 3
	printf -v cmd '%q ' "$@"
	ROW_CMD[ROW_I]=$cmd
}

# row_once I: one run of row I; a failed run leaves its error in
# $W/err.I, and the row is not run again.
row_once() {
	local i=$1
	eval "loop_run \"\$W/times.$i\" \"\$W/ptimes.$i\" \
		${ROW_PNAME[i]@Q} ${ROW_WORD[i]@Q} ${ROW_CMD[i]}" ||
		mv "$W/err" "$W/err.$i"
}

# row_print I: row I's line, from the medians of its runs.
row_print() {
	local i=$1 t ns p
	ROW_NS=- ROW_PROG=-
	RNS[i]=- RPROG[i]=-
	if [ -e "$W/err.$i" ]; then
		[ -z "$BARE" ] && BARE=-	# no ratios without the first
		printf '%-44s not available: %s\n' "${ROW_LABEL[i]}" \
			"$(grep -v RLIMIT_MEMLOCK "$W/err.$i" | head -n 1)"
		return
	fi
	t=$(median <"$W/times.$i")
	ns=$(awk -v t="$t" -v b="$BASE" -v n="$N" \
		'BEGIN { printf "%.1f", (t - b) / n }')
	p=$(median <"$W/ptimes.$i" | awk '{ printf "%.0f", $1 }')
	[ -z "$BARE" ] && BARE=$ns
	[ -z "${PBARE:-}" ] && PBARE=$p
	ROW_NS=$ns ROW_PROG=$p
	RNS[i]=$ns RPROG[i]=$p
	printf '%-44s %10s %7s %9s %7s\n' "${ROW_LABEL[i]}" "$ns" \
		"$(fmt_ratio "$ns" "$BARE")" "$p" \
		"$(awk -v p="$p" -v b="$PBARE" 'BEGIN { printf "%+d", p - b }')"
}

rows_run() {
	local n=${#ROW_LABEL[@]} k r j i
	k=$((n - ROW_FIRST))
	for ((i = ROW_FIRST; i < n; i++)); do
		: >"$W/times.$i"
		: >"$W/ptimes.$i"
		rm -f "$W/err.$i"
	done
	for ((r = 0; r < RUNS; r++)); do
		for ((j = 0; j < k; j++)); do
			i=$((ROW_FIRST + (j + r) % k))
			[ -e "$W/err.$i" ] || row_once "$i"
		done
	done
	for ((i = ROW_FIRST; i < n; i++)); do
		row_print "$i"
	done
	RUN_CV=$(rows_cv "$ROW_FIRST" "$n")
	ROW_FIRST=$n
}

# The runs' noise.  Runs of one configuration differ in BPF time by a few
# per cent, however many firings each counts: what differs is where the
# program and the traced process land, and what the machine's other
# tenants do meanwhile (a program attached beside the measured one, in the
# same firings, does not swing with it).  Two configurations whose
# programs do the same work then come out a few ns apart either way, and a
# goal that holds one at or below the other is decided by chance unless
# the comparison knows the noise.  rows_cv FIRST END: the standard
# deviation of a run's BPF time relative to its row's mean, pooled over
# rows FIRST to END - 1; rows_run leaves the table's in RUN_CV.
rows_cv() {
	local i files=()
	for ((i = $1; i < $2; i++)); do
		[ -e "$W/err.$i" ] || files+=("$W/ptimes.$i")
	done
	[ ${#files[@]} -gt 0 ] || { echo 0; return; }
	awk 'FNR == 1 && NR > 1 { row() }
	     { x[++k] = $1; sum += $1 }
	     function row(   j, m) {
		if (k > 1) {
			m = sum / k
			for (j = 1; j <= k; j++)
				ss += ((x[j] - m) / m) ^ 2
			df += k - 1
		}
		k = 0; sum = 0
	     }
	     END { row(); printf "%.4f", df ? sqrt(ss / df) : 0 }' "${files[@]}"
}

# noise_line CV: the line that shows the runs' noise beside the goals.
noise_line() {
	awk -v cv="$1" 'BEGIN { printf "the runs'"'"' noise: %.1f%% (standard deviation of a run'"'"'s BPF time)\n", 100 * cv }'
}

# below_or_noise D B CV: the verdict on D <= B for two rows' medians of
# RUNS runs each, of relative noise CV: "met" when D <= B, "met within the
# noise (M)" when D exceeds B by at most M, twice the standard error of
# the difference of two such medians (a median's error taken as 1.25
# times a mean's), "missed" beyond, "unknown" when one is missing.
below_or_noise() {
	awk -v d="$1" -v b="$2" -v cv="$3" -v r="$RUNS" 'BEGIN {
		if (d == "-" || b == "-" || d == "" || b == "") {
			print "unknown"; exit
		}
		m = 2 * 1.25 * cv * (d + b) / 2 * sqrt(2 / r)
		if (d + 0 <= b + 0) print "met"
		else if (d - b <= m) printf "met within the noise (%.1f)\n", m
		else printf "missed (the noise: %.1f)\n", m }'
}

firing_row() {
	row "$@"
	rows_run
}
