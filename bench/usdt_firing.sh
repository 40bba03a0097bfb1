#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/usdt_firing.sh: cost per firing of a <sys/sdt.h> probe (issues 4
# and 5), and of a site of <dtrace/usdt.h> whose probe the kernel
# optimizes (issue 33: table_nop5, below).
#
# test/progs/bench_usdt fires bench:tick N times (default 2,000,000) in a
# tight loop; test/progs/bench_usdt_sem fires bench_sem:tick, guarded by its
# semaphore, which a tracer raises.  Each program times its own loop.  Each
# runs untraced, under the kernel floor (bench/uprobe_floor.c: a bare
# uprobe with an empty BPF program on the same site, raising the semaphore
# through the link's reference counter), under dtrace's usdt provider with
# an empty clause, the dispatch alone and @ = count(), and under bpftrace's
# usdt: with the same work when installed; the dispatch alone also with the
# site's argument specification looked up by attach cookie, as sites placed
# while tracing and programs of many sites have it, rather than carried as
# code (usdt_tramp.c), and in a program that may serve sites placed
# later, which calls the attach cookie's helper and tests the cookie
# (DTRACE_BENCH_NOSOLE, dt_prog_load.c's sole_cookie_of()).  Medians of RUNS runs (default 5, in rotated
# rounds: lib.sh, rows_run): ns per firing above the untraced loop and the
# ratio to the bare uprobe, measured in this one run, and the time spent in
# the BPF program per firing (bench/progstat.c, see firing.sh).  The
# dispatch and count() are held to bpftrace's BPF time for the same work
# (for the dispatch, /(int64)arg0 < 0/ { @ = count(); }: bpftrace's arg0 is
# unsigned, and its /arg0 < 0/ { } compiles to an empty program), within
# the runs' noise (lib.sh, below_or_noise), and to 1.1x the bare uprobe
# (modelled, as in firing.sh); the empty clause, which records the firing,
# to bpftrace's printf of the CPU and the probe.  The status is 1 when a
# goal is missed.  The dispatch is also shown without the prefilter
# (DTRACE_BENCH_NOPREFILTER, dt_prog_prefilter.c).
#
#   sudo bench/usdt_firing.sh [N [RUNS]]     (B=build-dir, default build/)
#
# When dtrace's usdt provider does not work, its rows say "not available"
# and the rest goes on.  Exit status 0, 1 when a goal is missed, 2 when
# something is missing.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=${1:-200000}
RUNS=${2:-5}
# the measured program runs once per call: others' programs are not it
export PROGSTAT_RUNS=$N
need_root
need_dtrace bench_usdt bench_usdt_sem bench_usdt_nop5
build_floor
STATUS=0
# The dispatch's work in bpftrace: a signed test (its arg0 is unsigned, and
# /arg0 < 0/ false when compiled) and an action, which it never reaches.
BPRED='/(int64)arg0 < 0/ { @ = count(); }'
# The empty clause's work in bpftrace: D's { } records the firing, of
# which the consumer prints the CPU and the probe.
BREC='{ printf("%d %s\n", cpu, probe); }'
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# table PROG PROVIDER: the rows for one program and its probe PROVIDER:tick.
table() {
	local prog=$1 prov=$2 bin=$PROGS/$1
	BASE=$(firing_loop_ns "$prog" firings "$bin" "$N")
	BARE= PBARE=
	local disp=- count=- rec=- bcount=- bpred=- brec=-
	echo
	printf '%s:tick in %s (%d firings, median of %d runs)\n' "$prov" \
		"$prog" "$N" "$RUNS"
	printf 'untraced loop: %.2f ns per iteration\n' "$(awk -v t="$BASE" \
		-v n="$N" 'BEGIN { print t / n }')"
	firing_header
	row "bare uprobe, empty BPF program" "$prog" firings \
		"$FLOOR" run "$bin" "sdt:$prov:tick" -- "$bin" "$N"
	local bare_row=$ROW_I
	row "dtrace $prov\$target:::tick { }" "$prog" firings \
		"$DTRACE" -q -n "$prov\$target:::tick { }" -c "$bin $N"
	local rec_row=$ROW_I
	row "dtrace $prov\$target:::tick /arg0 < 0/ { }" "$prog" \
		firings "$DTRACE" -q -n "$prov\$target:::tick /arg0 < 0/ { }" \
		-c "$bin $N"
	local disp_row=$ROW_I
	row "  the same, no prefilter" "$prog" firings \
		env DTRACE_BENCH_NOPREFILTER=1 "$DTRACE" -q \
		-n "$prov\$target:::tick /arg0 < 0/ { }" -c "$bin $N"
	row "  the same, the site's spec looked up" "$prog" firings \
		env DTRACE_BENCH_USDT_LOOKUP=1 "$DTRACE" -q \
		-n "$prov\$target:::tick /arg0 < 0/ { }" -c "$bin $N"
	row "  the same, a program open to later sites" "$prog" firings \
		env DTRACE_BENCH_NOSOLE=1 "$DTRACE" -q \
		-n "$prov\$target:::tick /arg0 < 0/ { }" -c "$bin $N"
	row "dtrace $prov\$target:::tick { @ = count(); }" "$prog" \
		firings "$DTRACE" -q \
		-n "$prov\$target:::tick { @ = count(); }" -c "$bin $N"
	local count_row=$ROW_I bt_row=-1
	if have_bpftrace; then
		row "bpftrace usdt:...:$prov:tick { }" "$prog" \
			firings bpftrace \
			-e "usdt:$bin:$prov:tick { }" -c "$bin $N"
		bt_row=$ROW_I
		row "bpftrace usdt:...:$prov:tick $BPRED" \
			"$prog" firings bpftrace \
			-e "usdt:$bin:$prov:tick $BPRED" -c "$bin $N"
		row "bpftrace usdt:...:$prov:tick { @ = count(); }" \
			"$prog" firings bpftrace \
			-e "usdt:$bin:$prov:tick { @ = count(); }" -c "$bin $N"
		row "bpftrace usdt:...:$prov:tick $BREC" \
			"$prog" firings bpftrace \
			-e "usdt:$bin:$prov:tick $BREC" -c "$bin $N"
	fi
	rows_run
	[ "${RNS[bare_row]}" = - ] &&
		echo "(no bare uprobe figure: ratios are not shown)"
	local cv=$RUN_CV
	disp=${RPROG[disp_row]} count=${RPROG[count_row]}
	rec=${RPROG[rec_row]}
	noise_line "$cv"
	if [ "$bt_row" -ge 0 ]; then
		bpred=${RPROG[bt_row + 1]}
		bcount=${RPROG[bt_row + 2]}
		brec=${RPROG[bt_row + 3]}
		usdt_goal "dispatch alone against bpftrace $BPRED" \
			"$disp" "$bpred" "$cv"
		usdt_goal "@ = count()" "$count" "$bcount" "$cv"
		usdt_goal "{ } against bpftrace $BREC" "$rec" "$brec" "$cv"
	fi
	bare_goal "dispatch alone" "$disp"
	bare_goal "@ = count()" "$count"
}

# bare_goal LABEL DTRACE_NS: at most 1.1x the bare uprobe, modelled as the
# bare uprobe's ns per firing plus the BPF ns dtrace adds to its empty
# program (the loop's wall time follows it on an idle machine only).
bare_goal() {
	local m v
	m=$(awk -v b="$BARE" -v p="$2" -v e="$PBARE" 'BEGIN {
		if (p == "-" || b == "-" || b + 0 <= 0) print "-"
		else printf "%.2f", (b + p - e) / b }')
	v=$(awk -v m="$m" 'BEGIN {
		if (m == "-") print "unknown"
		else print (m + 0 <= 1.1) ? "met" : "missed" }')
	printf 'goal: %s, x bare (modelled) %s <= 1.1: %s\n' "$1" "$m" "$v"
	[ "$v" = met ] || STATUS=1
}

# usdt_goal LABEL DTRACE_NS BPFTRACE_NS CV: dtrace's BPF time at or below
# bpftrace's for the same work, or above it by no more than the runs'
# noise (lib.sh, below_or_noise).
usdt_goal() {
	local v
	v=$(below_or_noise "$2" "$3" "$4")
	printf 'goal: %s, dtrace %s BPF ns <= bpftrace %s: %s\n' "$1" "$2" \
		"$3" "$v"
	[ "${v%% *}" = met ] || STATUS=1
}

# nop5_mode: the -x usdt.sitemode that puts benchnop's probe on its 5-byte
# nop: auto where dtrace chooses it, else nop5 (forced: the kernel's
# optimization is not safe for programs that fork, which the benchmark does
# not), with a line that says so; empty where the kernel does not optimize.
nop5_mode() {
	local bin=$PROGS/bench_usdt_nop5
	"$DTRACE" -x debug -q -n 'benchnop$target:::tick { }' -c "$bin 1" \
		>"$W/out" 2>"$W/err"
	if grep -q '5-byte nop (optimized)' "$W/err"; then
		echo auto
	elif grep -q 'optimized uprobes crash a forked child' "$W/err"; then
		echo nop5
	fi
}

# table_nop5: a site of <dtrace/usdt.h> (bench_usdt_nop5: a nop, then a
# 5-byte nop), its probe on the 5-byte nop the kernel optimizes and on the
# nop the note names, beside the same work on bench_usdt's <sys/sdt.h>
# site under bpftrace (the two loops differ by the 5-byte nop, a fraction
# of a ns).  Goals: dtrace's @ = count() on the optimized site at most
# 0.35x bpftrace's on the <sys/sdt.h> site, and at most 1.2x the bare
# uprobe on the 5-byte nop.
table_nop5() {
	local prog=bench_usdt_nop5 bin=$PROGS/bench_usdt_nop5 mode
	mode=$(nop5_mode)
	echo
	if [ -z "$mode" ]; then
		echo "benchnop:tick: the kernel does not optimize uprobes on 5-byte nops: no table"
		return
	fi
	BASE=$(firing_loop_ns "$prog" firings "$bin" "$N")
	BARE= PBARE=
	printf 'benchnop:tick in %s, a site of <dtrace/usdt.h> (%d firings, median of %d runs)\n' \
		"$prog" "$N" "$RUNS"
	[ "$mode" = nop5 ] && echo "(this kernel's optimized uprobes crash forked children: dtrace places probes on the 5-byte nop only when forced, -x usdt.sitemode=nop5)"
	printf 'untraced loop: %.2f ns per iteration\n' "$(awk -v t="$BASE" \
		-v n="$N" 'BEGIN { print t / n }')"
	firing_header
	row "bare uprobe on the 5-byte nop" "$prog" firings \
		"$FLOOR" run "$bin" "sdt5:benchnop:tick" -- "$bin" "$N"
	row "bare uprobe on the nop (classic)" "$prog" firings \
		"$FLOOR" run "$bin" "sdt:benchnop:tick" -- "$bin" "$N"
	row "dtrace { @ = count(); }, sitemode=$mode" "$prog" firings \
		"$DTRACE" -x usdt.sitemode=$mode -q \
		-n 'benchnop$target:::tick { @ = count(); }' -c "$bin $N"
	local count_row=$ROW_I bt_row=-1
	row "dtrace { @ = count(); }, sitemode=classic" "$prog" firings \
		"$DTRACE" -x usdt.sitemode=classic -q \
		-n 'benchnop$target:::tick { @ = count(); }' -c "$bin $N"
	if have_bpftrace; then
		row "bpftrace <sys/sdt.h> site { @ = count(); }" bench_usdt \
			firings bpftrace -e "usdt:$PROGS/bench_usdt:bench:tick { @ = count(); }" \
			-c "$PROGS/bench_usdt $N"
		bt_row=$ROW_I
	fi
	rows_run
	local count=${RNS[count_row]} m v
	m=$(fmt_ratio "$count" "$BARE")
	v=$(awk -v m="$m" 'BEGIN { print m == "-" ? "unknown" : (m + 0 <= 1.2 ? "met" : "missed") }')
	printf 'goal: @ = count() on the 5-byte nop, x the bare uprobe there %s <= 1.2: %s\n' "$m" "$v"
	[ "$v" = met ] || STATUS=1
	if [ "$bt_row" -ge 0 ]; then
		m=$(awk -v a="$count" -v b="${RNS[bt_row]}" 'BEGIN {
			if (a == "-" || b == "-" || b + 0 <= 0) print "-"
			else printf "%.2f", a / b }')
		v=$(awk -v m="$m" 'BEGIN { print m == "-" ? "unknown" : (m + 0 <= 0.35 ? "met" : "missed") }')
		printf 'goal: @ = count() on the 5-byte nop, x bpftrace on <sys/sdt.h> %s <= 0.35: %s\n' "$m" "$v"
		[ "$v" = met ] || STATUS=1
	fi
}

table bench_usdt bench
table bench_usdt_sem bench_sem
table_nop5
have_bpftrace || echo "bpftrace is not installed: no comparison"
echo
echo "An empty clause in D records a firing (the default action), which"
echo "the consumer reads; /arg0 < 0/ { } is the dispatch alone."
exit $STATUS
