#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/ustack.sh: what user stacks cost (issue 17).
#
# 1. Per firing, in the traced program: test/progs/bench_loop calls
#    bench_fn N times (default 50,000) under a bare uprobe, under dtrace
#    with @ = count(), ustack() (the stack copy, -x ustackbytes of it, goes
#    to the consumer; the default 8k and 2k), @[ustack()] = count() (the
#    same copy, aggregated by the consumer), and under bpftrace's
#    @[ustack] = count() (the kernel's frame-pointer walk into a stack map).
#    Median of RUNS (default 3); ns per firing above the untraced loop and
#    the ratio to the bare uprobe.  The consumer may not keep up with a
#    tight loop: its drops are counted separately (the figure is the
#    probe's cost, not the consumer's).
# 2. The consumer's unwinding rate: K firings (default 20,000) each
#    printing ustack(), with a buffer large enough that none is dropped;
#    stacks per second = K / (the tracer's user CPU time - that of the same
#    run printing only a number).  bpftrace's print(ustack) beside it.
#
#   sudo bench/ustack.sh [N [RUNS [K]]]        (B=build-dir, default build/)
#
# Exit status 0; 2 when something it needs is missing.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=${1:-50000}
RUNS=${2:-3}
K=${3:-20000}
firing_setup
P='pid$target:a.out:bench_fn:entry'

BASE=$(firing_loop_ns bench_loop calls "$LOOP" "$N")
BARE=
printf 'per firing of bench_fn (%d calls, median of %d runs)\n\n' "$N" "$RUNS"
printf '%-44s %12s %10s\n' "configuration" "ns/firing" "x bare"
firing_row "bare uprobe, empty BPF program" bench_loop calls \
	"$FLOOR" run "$LOOP" bench_fn -- "$LOOP" "$N"
firing_row "dtrace { @ = count(); }" bench_loop calls "$DTRACE" -q \
	-n "$P { @ = count(); }" -c "$LOOP $N"
for opt in 8k 2k; do
	firing_row "dtrace { ustack(); } ustackbytes=$opt" bench_loop calls \
		"$DTRACE" -q -o /dev/null -x ustackbytes=$opt \
		-n "$P { ustack(); }" -c "$LOOP $N"
	grep -o '[0-9]* drops\? on CPU' "$W/err" | awk '{ d += $1 } END {
		if (d) printf "%44s (%d records dropped by the consumer)\n", "", d }'
done
firing_row "dtrace { @[ustack()] = count(); }" bench_loop calls "$DTRACE" -q \
	-n "$P { @[ustack()] = count(); }" -c "$LOOP $N"
if have_bpftrace; then
	firing_row "bpftrace { @[ustack] = count(); }" bench_loop calls \
		bpftrace -e "uprobe:$LOOP:bench_fn { @[ustack] = count(); }" \
		-c "$LOOP $N"
else
	echo "bpftrace is not installed: no comparison"
fi

# user_s CMD...: median user CPU time of RUNS runs of CMD, in seconds: the
# consumer's work (the probes' BPF runs in the traced process, as system
# time)
user_s() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%U' -o "$W/time" "$@" >/dev/null 2>"$W/err" \
			</dev/null
		tail -n 1 "$W/time"
	done | median
}
rate() {	# label, CPU time with stacks, without
	awk -v l="$1" -v t="$2" -v b="$3" -v k="$K" 'BEGIN {
		if (t - b <= 0) printf "%-44s %12s\n", l, "-";
		else printf "%-44s %12.0f\n", l, k / (t - b) }'
}
echo
printf 'unwinding: %d stacks of bench_fn printed (user CPU time, median of %d runs)\n\n' \
	"$K" "$RUNS"
printf '%-44s %12s\n' "configuration" "stacks/s"
if [ ! -x /usr/bin/time ]; then
	echo "/usr/bin/time is not installed: no figures"
	exit 0
fi
t_plain=$(user_s "$DTRACE" -q -x bufsize=512m -n "$P { trace(1); }" \
	-c "$LOOP $K")
t_stack=$(user_s "$DTRACE" -q -x bufsize=512m -n "$P { ustack(); }" \
	-c "$LOOP $K")
rate "dtrace ustack() (libdw, CFI)" "$t_stack" "$t_plain"
if have_bpftrace; then
	t_plain=$(user_s bpftrace -e "uprobe:$LOOP:bench_fn { printf(\"1\\n\"); }" \
		-c "$LOOP $K")
	t_stack=$(user_s bpftrace -e "uprobe:$LOOP:bench_fn { print(ustack); }" \
		-c "$LOOP $K")
	rate "bpftrace print(ustack) (frame pointers)" "$t_stack" "$t_plain"
fi
exit 0
