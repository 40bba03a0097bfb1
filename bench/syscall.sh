#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/syscall.sh: cost per firing of a syscall probe (issue 11).
#
# test/progs/bench_syscall calls getppid() N times (default 1,000,000) and
# times its own loop.  The loop runs untraced, under the two kernel floors
# the syscall provider could be built on (an empty BPF program on the
# per-call tracepoint syscalls:sys_enter_getppid, and on the raw tracepoint
# raw_syscalls:sys_enter comparing the call's number, which also runs for
# every other call of the machine), under dtrace's syscall::getppid:entry
# and under bpftrace's tracepoint when installed.  Each configuration runs
# RUNS times (default 3); the median loop time gives the cost per firing
# above the untraced loop and its ratio to the bare tracepoint's.
#
#   sudo bench/syscall.sh [N [RUNS]]          (B=build-dir, default build/)
#
# Exit status 0; 2 when something it needs is missing.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=${1:-1000000}
RUNS=${2:-3}
need_root
need_dtrace bench_syscall
KFLOOR=$B/bench/kernel_floor
if [ ! -x "$KFLOOR" ] || [ "$ROOT/bench/kernel_floor.c" -nt "$KFLOOR" ]; then
	mkdir -p "$B/bench"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -o "$KFLOOR" \
		"$ROOT/bench/kernel_floor.c" -lbpf || exit 2
fi
LOOP=$PROGS/bench_syscall
NR=$(printf '#include <sys/syscall.h>\nSYS_getppid\n' | cpp -P - | tail -n 1)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

BASE=$(firing_loop_ns bench_syscall calls "$LOOP" "$N")
BARE=
printf 'per firing of getppid() (%d calls, median of %d runs)\n' "$N" "$RUNS"
printf 'untraced loop: %.1f ns per call\n\n' "$(awk -v t="$BASE" -v n="$N" \
	'BEGIN { print t / n }')"
printf '%-44s %12s %10s\n' "configuration" "ns/firing" "x bare"
firing_row "bare tracepoint sys_enter_getppid" bench_syscall calls \
	"$KFLOOR" tp syscalls sys_enter_getppid -- "$LOOP" "$N"
firing_row "bare raw tracepoint sys_enter, nr == $NR" bench_syscall calls \
	"$KFLOOR" rawtp sys_enter "$NR" -- "$LOOP" "$N"
for clause in '/arg0 < 0/ { }' '{ @ = count(); }' '{ @[probefunc] = count(); }'; do
	firing_row "dtrace $clause" bench_syscall calls "$DTRACE" -q \
		-n "syscall::getppid:entry $clause" -c "$LOOP $N"
done
if have_bpftrace; then
	firing_row "bpftrace { @ = count(); }" bench_syscall calls bpftrace \
		-e 'tracepoint:syscalls:sys_enter_getppid { @ = count(); }' \
		-c "$LOOP $N"
else
	echo "bpftrace is not installed: no comparison"
fi
echo
echo "The syscall provider uses the per-call tracepoints: the raw tracepoint"
echo "is cheaper per traced firing, but runs for every call not traced too,"
echo "on every CPU.  Times are the loop thread's CPU time (the programs run"
echo "in it), which the other work of a busy machine does not inflate."
exit 0
