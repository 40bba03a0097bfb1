#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/usdt_reg.sh: what USDT costs a program that is not being traced.
#
#   1. Start-up cost that registration adds to a program with 1,000 probes
#      (built with dtrace -h / -G): median wall time of RUNS runs of a
#      program that returns at once, with a dtprobed running (test-owned
#      socket and state directory), with none, and of the same program
#      built without the -G object's registration (its constructor disabled
#      by linking a stub), as the baseline; in rotated rounds, each cost
#      the median of the rounds' differences from the baseline.
#   2. PROV_PROBE_ENABLED() in a tight loop: ns per check, untraced, and
#      traced (bpftrace attached to the probe, which raises its semaphore)
#      when bpftrace is installed.
#
#   sudo bench/usdt_reg.sh [RUNS]        (B=build-dir, default build/)
#
# Targets: registration with dtprobed adds under 2 ms, without dtprobed
# under 0.2 ms; an untraced ENABLED() check under 1 ns.  Exit 1 on a miss.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${B:-build}
[ "${B#/}" = "$B" ] && B=$ROOT/$B
RUNS=${1:-200}
DTRACE=$B/dtrace
[ -x "$DTRACE" ] && [ -x "$B/dtprobed" ] || { echo "bench: run make first" >&2; exit 2; }
W=$(mktemp -d)
trap 'kill $dpid 2>/dev/null; rm -rf "$W"' EXIT
dpid=
cd "$W"

# A provider with 1,000 probes and a program that fires each once when asked.
{
	echo "provider big {"
	for i in $(seq 0 999); do echo "	probe p$i(int);"; done
	echo "};"
} >big.d
{
	echo '#include <stdio.h>'
	echo '#include <stdlib.h>'
	echo '#include <time.h>'
	echo '#include "big.h"'
	echo 'int main(int argc, char **argv) {'
	echo '	if (argc > 1 && argv[1][0] == "f"[0]) {'
	for i in $(seq 0 999); do echo "		BIG_P$i($i);"; done
	echo '	}'
	echo '	if (argc > 1 && argv[1][0] == "e"[0]) {'
	echo '		long n = atol(argv[2]), hits = 0; struct timespec a, b;'
	echo '		clock_gettime(CLOCK_MONOTONIC, &a);'
	echo '		for (long i = 0; i < n; i++) { if (BIG_P0_ENABLED()) hits++; __asm__ volatile("" ::: "memory"); }'
	echo '		clock_gettime(CLOCK_MONOTONIC, &b);'
	echo '		printf("%.3f %ld\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n, hits);'
	echo '	}'
	echo '	return 0;'
	echo '}'
} >big.c
"$DTRACE" -h -s big.d -o big.h || exit 2
cc -O2 -I"$ROOT/include" -I. -c big.c -o big.o || exit 2
"$DTRACE" -G -s big.d -o big_prov.o big.o || exit 2
cc -o big big.o big_prov.o || exit 2
# Baseline: same semaphores, no registration code.
{
	echo 'volatile unsigned short big_sema[1000] __attribute__((section(".probes"), visibility("hidden")));'
	for i in $(seq 0 999); do
		echo "__asm__(\".globl big_p${i}_semaphore\\n.hidden big_p${i}_semaphore\\n.set big_p${i}_semaphore, big_sema + $((2 * i))\");"
	done
} >stub.c
cc -O2 -c stub.c -o stub.o && cc -o big_noreg big.o stub.o || exit 2

# The three start-ups are timed in rounds: each round runs every one once,
# starting one further than the round before, so that the machine's drift
# over the minutes falls on all three alike (as firing.sh's rows_run).
# The clock is the shell's own ($EPOCHREALTIME, no process started around
# the run), and each run starts 20 ms after the one before, once dtprobed
# has had time to prepare the parser of the next message: what a
# program's start pays, not the daemon's throughput when programs start
# back to back.  A run without a daemon names a socket nobody listens on.
# time_run FILE PROGRAM...: append the run's wall time (us) to FILE.
time_run() {
	local out=$1 t0 t1
	shift
	sleep 0.02
	t0=${EPOCHREALTIME/[.,]/}; "$@" >/dev/null; t1=${EPOCHREALTIME/[.,]/}
	echo $((t1 - t0)) >>"$out"
}
# median_ms FILE: the median of FILE's times, in ms.
median_ms() {
	sort -n "$1" | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)] / 1000}'
}
# above FILE: the median over the rounds of FILE's run minus the baseline's
# run of the same round, in ms.  The machine's pace drifts by more than
# the differences measured (medians of 200 runs moved by 0.4 ms from one
# minute to the next), and each round's three runs share its pace.
above() {
	paste "$1" t.base | awk '{ print $1 - $2 }' | median_ms /dev/stdin
}

export DTPROBED_SOCKET=$W/sock DTPROBED_STATEDIR=$W/state DTPROBED_MAP=
"$B/dtprobed" -F -m '' 2>/dev/null & dpid=$!
sleep 0.3
for i in $(seq "$RUNS"); do
	for k in 0 1 2; do
		case $(((i + k) % 3)) in
		0) time_run t.base ./big_noreg ;;
		1) DTPROBED_SOCKET=$W/nosock time_run t.none ./big ;;
		2) time_run t.with ./big ;;
		esac
	done
done
kill $dpid; wait $dpid 2>/dev/null; dpid=
base=$(median_ms t.base) none=$(median_ms t.none) with=$(median_ms t.with)
dnone=$(above t.none) dwith=$(above t.with)

ok=0
echo "start-up, 1000 probes (median of $RUNS runs, ms):"
printf "  no registration code  %8s\n" "$base"
printf "  no dtprobed running   %8s   (%+.3f)\n" "$none" "$dnone"
printf "  dtprobed running      %8s   (%+.3f)\n" "$with" "$dwith"
echo "  (in brackets: the median of each round's difference from the baseline)"
[ "$(echo "$dwith < 2" | bc)" = 1 ] || { echo "  MISSED: with dtprobed >= 2 ms"; ok=1; }
[ "$(echo "$dnone < 0.2" | bc)" = 1 ] || { echo "  MISSED: without dtprobed >= 0.2 ms"; ok=1; }

N=200000000
untraced=$(./big e $N | cut -d' ' -f1)
echo "ENABLED() check, ns per iteration:"
printf "  untraced              %8s\n" "$untraced"
[ "$(echo "$untraced < 1" | bc)" = 1 ] || { echo "  MISSED: untraced >= 1 ns"; ok=1; }
if command -v bpftrace >/dev/null; then
	./big e $((N * 5)) >traced.out &
	bp=$!
	bpftrace -p $bp -e 'usdt:./big:big:p0 { @ = count(); }' >/dev/null 2>&1 &
	bt=$!
	wait $bp
	kill $bt 2>/dev/null; wait $bt 2>/dev/null
	read -r traced hits <traced.out
	printf "  traced (bpftrace)     %8s   (%s checks saw it enabled)\n" "$traced" "$hits"
fi
exit $ok
