#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/compile.sh: compile time against the size of the input (issue 15).
#
# Each case runs at a size S and at 4 S: dtrace -h of a provider with S
# probes (default S 40,000), dtrace -G of such a provider (S/4 probes,
# since it runs the C compiler) with an object firing two of them, a
# script of S enumerators, and one of S/2 globals each assigned in a clause
# of 500 statements (loaded and run once: BEGIN).  It prints the seconds
# of each (median of RUNS, default 3) and the growth, time(4 S) / (4 *
# time(S)): about 1 when the time is linear in the input, 4 when it is
# quadratic.  Goal: growth at most 2 for every case.  Then 2 S globals
# assigned in 63 clauses are loaded and run: goal, they load.
#
#   sudo bench/compile.sh [S [RUNS]]          (B=build-dir, default build/)
#
# Exit status 0 when every case is linear, 1 when one is not, 2 when
# something is missing.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
S=${1:-40000}
RUNS=${2:-3}
need_dtrace
command -v cc >/dev/null || { echo "bench: needs cc" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 2
STATUS=0

provider() {	# provider N: a provider file of N probes on stdout
	awk -v n="$1" 'BEGIN { print "provider big {"
		for (i = 0; i < n; i++) printf "\tprobe p%d(int);\n", i
		print "};" }'
}
enums() {
	awk -v n="$1" 'BEGIN { print "enum big {"
		for (i = 0; i < n; i++) printf "\tE%d,\n", i
		print "};"; print "BEGIN { exit(0); }" }'
}
globals() {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++) printf "int g%d;\n", i
		for (i = 0; i < n; i++) {
			if (i % 500 == 0) print "BEGIN {"
			printf "\tg%d = %d;\n", i, i
			if (i % 500 == 499 || i == n - 1) print "}"
		}
		print "BEGIN { exit(0); }" }'
}

# secs CMD...: the median wall time of RUNS runs of CMD, in seconds; empty
# when it fails (its error in $W/err).
secs() {
	local i t0 t1
	: >"$W/times"
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now_us)
		"$@" >/dev/null 2>"$W/err" </dev/null || return
		t1=$(now_us)
		echo $(((t1 - t0))) >>"$W/times"
	done
	median <"$W/times" | awk '{ printf "%.2f", $1 / 1e6 }'
}

# row LABEL N PREP CMD...: PREP N writes the input (in.d), CMD compiles
# it; at N and 4 N.
row() {
	local label=$1 n=$2 prep=$3 a b g v
	shift 3
	"$prep" "$n" >in.d
	a=$(secs "$@")
	"$prep" $((4 * n)) >in.d
	b=$(secs "$@")
	if [ -z "$a" ] || [ -z "$b" ]; then
		printf '%-34s failed: %s\n' "$label" "$(head -n 1 "$W/err")"
		STATUS=1
		return
	fi
	g=$(awk -v a="$a" -v b="$b" 'BEGIN {
		printf "%.2f", (a > 0 ? b / (4 * a) : 0) }')
	v=$(awk -v g="$g" 'BEGIN { print g <= 2 ? "linear" : "NOT linear" }')
	[ "$v" = linear ] || STATUS=1
	printf '%-34s %8d %8.2f %8d %8.2f %7s  %s\n' "$label" "$n" "$a" \
		$((4 * n)) "$b" "$g" "$v"
}

gen_G() {	# gen_G N: the provider, its header and an object firing it
	provider "$1"
	"$DTRACE" -h -s /dev/stdin -o big.h < <(provider "$1") || return
	printf '#include "big.h"\nint main(int c, char **v) { BIG_P0(c); BIG_P1(c); return 0; }\n' >a.c
	cc -c -O2 a.c -o a.o
}

printf '%-34s %8s %8s %8s %8s %7s\n' "case" "size" "s" "size" "s" "growth"
row "dtrace -h, probes" "$S" provider "$DTRACE" -h -s in.d -o out.h
row "dtrace -G, probes" $((S / 4)) gen_G "$DTRACE" -G -s in.d -o p.o a.o
row "enumerators" "$S" enums "$DTRACE" -e -s in.d
row "globals, assigned" $((S / 2)) globals "$DTRACE" -e -s in.d
echo
echo "growth: time(4 N) / (4 time(N)); 1 is linear, 4 quadratic (goal: <= 2)"

# Large programs load, or are refused at compile time with a reason: 2 S
# globals assigned in 63 clauses (a probe takes at most 64), loaded into
# the kernel and run (BEGIN).
globals_loaded() {
	awk -v n="$1" 'BEGIN {
		per = int((n + 62) / 63)
		for (i = 0; i < n; i++) printf "int g%d;\n", i
		for (i = 0; i < n; i++) {
			if (i % per == 0) print "BEGIN {"
			printf "\tg%d = %d;\n", i, i
			if (i % per == per - 1 || i == n - 1) print "}"
		}
		printf "BEGIN { printf(\"%%d\\n\", g%d); exit(0); }\n", n - 1 }'
}
globals_loaded $((2 * S)) >in.d
t0=$(now_us)
out=$("$DTRACE" -q -s in.d 2>"$W/err")
t1=$(now_us)
if [ "$out" = "$((2 * S - 1))" ]; then
	printf '%d globals assigned in 63 clauses: loaded and ran in %.2f s: met\n' \
		$((2 * S)) "$(awk -v t=$((t1 - t0)) 'BEGIN { print t / 1e6 }')"
else
	printf '%d globals assigned in 63 clauses: not loaded: %s: missed\n' \
		$((2 * S)) "$(head -n 1 "$W/err")"
	STATUS=1
fi
exit $STATUS
