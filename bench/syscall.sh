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
# on each (-x syscall.mode=percall, =raw) and under bpftrace's tracepoint
# when installed.  Each configuration runs RUNS times (default 3); the
# median loop time gives the cost per firing above the untraced loop and
# its ratio to the bare tracepoint's.  Then the wall time of a whole
# session of syscall:::entry (attach, `true`, detach) in each mode.
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
build_helper progstat
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
for mode in percall raw; do
	for clause in '/arg0 < 0/ { }' '{ @ = count(); }' '{ @[probefunc] = count(); }'; do
		firing_row "dtrace $mode $clause" bench_syscall calls \
			"$DTRACE" -x syscall.mode=$mode -q \
			-n "syscall::getppid:entry $clause" -c "$LOOP $N"
	done
done
if have_bpftrace; then
	firing_row "bpftrace { @ = count(); }" bench_syscall calls bpftrace \
		-e 'tracepoint:syscalls:sys_enter_getppid { @ = count(); }' \
		-c "$LOOP $N"
else
	echo "bpftrace is not installed: no comparison"
fi

# A whole session of every call: the per-call mode attaches some 360
# tracepoints and the kernel detaches them one by one under a lock.
echo
printf '%-44s %12s\n' "syscall:::entry, attach + true + detach" "s (wall)"
for mode in percall raw; do
	t0=$(now_us)
	"$DTRACE" -x syscall.mode=$mode -q -n 'syscall:::entry { @ = count(); }' \
		-c true >/dev/null 2>&1
	t1=$(now_us)
	printf '%-44s %12.2f\n' "dtrace -x syscall.mode=$mode" \
		"$(awk -v d=$((t1 - t0)) 'BEGIN { print d / 1e6 }')"
done
echo
echo "The syscall provider traces raw when a description names more than 16"
echo "calls in a direction (syscall:::entry), per call otherwise: the raw"
echo "tracepoint is cheaper per traced firing but runs for every call not"
echo "traced too, on every CPU.  Times per firing are the loop thread's CPU"
echo "time (the programs run in it), which the other work of a busy machine"
echo "does not inflate."
exit 0
