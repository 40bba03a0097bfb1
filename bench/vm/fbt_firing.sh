#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/vm/fbt_firing.sh: run inside the test virtual machine by
# bench/fbt_vm.sh; prints its figures on lines starting "figure: ".
set -u
N=${N:-200000}
RUNS=${RUNS:-3}
LOOP=$PROGS/bench_syscall
# (dtrace -l exits 0 when a description matches nothing: look at what it
# lists)
for f in __x64_sys_getppid __do_sys_getppid; do
	"$DTRACE" -l -n "fbt::$f:entry" 2>/dev/null | grep -qw "$f" &&
		{ FUNC=$f; break; }
done
[ -n "${FUNC:-}" ] || { echo "no getppid function in BTF"; exit 1; }

# median loop time in ns of RUNS runs of CMD...
loop_ns() {
	local i
	for ((i = 0; i < RUNS; i++)); do
		"$@" </dev/null 2>/dev/null | awk '$1 == "bench_syscall" { print $4 }'
	done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
BASE=$(loop_ns "$LOOP" "$N")
per() { awk -v t="$1" -v b="$BASE" -v n="$N" 'BEGIN { printf "%.1f", (t - b) / n }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

echo "figure: fbt::$FUNC:entry, $N calls of getppid(), median of $RUNS runs (TCG)"
printf 'figure: untraced loop %.1f ns per call\n' "$(awk -v t="$BASE" -v n="$N" 'BEGIN { print t / n }')"
printf 'figure: %-36s %12s %8s\n' configuration ns/firing "x bare"
for mode in fentry kprobe; do
	bare=$(per "$(loop_ns "$KFLOOR" "$mode" "$FUNC" -- "$LOOP" "$N")")
	printf 'figure: %-36s %12s %8s\n' "bare $mode, empty program" "$bare" 1.0
	for clause in '/arg0 < 0/ { }' '{ @ = count(); }'; do
		ns=$(per "$(loop_ns "$DTRACE" -x fbt.mode=$mode -q \
			-n "fbt::$FUNC:entry $clause" -c "$LOOP $N")")
		printf 'figure: %-36s %12s %8s\n' "dtrace $mode $clause" "$ns" \
			"$(ratio "$ns" "$bare")"
	done
done
