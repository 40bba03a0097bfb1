#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/firing.sh: cost per firing of a pid entry probe (issues 3, 6, 15,
# 33).
#
# test/progs/bench_loop calls bench_fn(i) N times (default 200,000) and
# times its own loop.  The loop runs untraced, under the kernel floor (a
# bare uprobe with an empty BPF program, bench/uprobe_floor.c, and with the
# program bpftrace makes of /arg0 < 0/ { }), under dtrace with an empty
# clause, the dispatch alone and aggregating clauses, and under bpftrace's
# uprobe with the same work when installed (for the dispatch,
# /(int64)arg0 < 0/ with an action: bpftrace's arg0 is unsigned; for the
# empty clause, which records the firing, a printf of the CPU and the
# probe, what dtrace prints of the record).  Each
# configuration runs RUNS times (default 5), in rotated rounds (lib.sh,
# rows_run); the medians give:
#
#   ns/firing	the loop's time per call above the untraced loop
#   x bare	its ratio to the bare uprobe's
#   BPF ns	the time the kernel spent in the tracer's BPF program per
#		firing (bench/progstat.c), the part a tracer controls
#   +ns		that time above the bare uprobe's empty program
#
# Then the breakdown of dtrace's dispatch, stage by stage (programs built to
# stop after each one, DTRACE_BENCH_STOP; the complete program without the
# prefilter, DTRACE_BENCH_NOPREFILTER, and with it, also as a call with its
# copy of the arguments, DTRACE_BENCH_NOPREOPT, and as a call optimized,
# DTRACE_BENCH_NOPREINLINE), the same for the
# update of @[probefunc] = count() (in the hash, DTRACE_BENCH_NOBYPRID and
# DTRACE_BENCH_AGGSTOP, and in the array by PRID), and the goals of
# issue 15, each met or missed; the status is 1 when one is missed.  The
# goals on ratios use the modelled cost of a firing, the bare uprobe's
# plus the BPF time the configuration adds, which the loop's wall time
# follows on an idle machine but not on a busy one; the wall ratios are
# shown beside them.  A goal against bpftrace's BPF time is met within
# the noise when dtrace's exceeds it by no more than the runs' noise
# (lib.sh, below_or_noise).
#
#   sudo bench/firing.sh [N [RUNS]]          (B=build-dir, default build/)
#
# Exit status 0 when every goal is met, 1 when one is missed, 2 when
# something it needs is missing.  A configuration that fails prints "not
# available" with the tool's first error line.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
N=${1:-200000}
RUNS=${2:-5}
# the measured program runs once per call: others' programs are not it
export PROGSTAT_RUNS=$N
firing_setup

BASE=$(firing_loop_ns bench_loop calls "$LOOP" "$N")
BARE=
PBARE=
printf 'per firing of bench_fn (%d calls, median of %d runs)\n' "$N" "$RUNS"
printf 'untraced loop: %.2f ns per call\n\n' "$(awk -v t="$BASE" -v n="$N" \
	'BEGIN { print t / n }')"
firing_header

row "bare uprobe, empty BPF program" bench_loop calls \
	"$FLOOR" run "$LOOP" bench_fn -- "$LOOP" "$N"
row "bare uprobe, bpftrace's /arg0 < 0/ program" bench_loop calls \
	"$FLOOR" run-arg0 "$LOOP" bench_fn -- "$LOOP" "$N"
declare -A DROW BROW DNS DPROG BPROG
for clause in '{ }' '/arg0 < 0/ { }' '{ @ = count(); }' \
	'{ @[probefunc] = count(); }' '{ @ = quantize(arg0); }'; do
	row "dtrace $clause" bench_loop calls "$DTRACE" -q \
		-n "pid\$target:a.out:bench_fn:entry $clause" -c "$LOOP $N"
	DROW[$clause]=$ROW_I
done
row "  the same, no prefilter" bench_loop calls \
	env DTRACE_BENCH_NOPREFILTER=1 "$DTRACE" -q \
	-n "pid\$target:a.out:bench_fn:entry /arg0 < 0/ { }" -c "$LOOP $N"
NOPRE_ROW=$ROW_I
# bpftrace's arg0 is unsigned: its /arg0 < 0/ is false when compiled, and
# with no action left its program tests nothing.  The same test, signed and
# with an action it never reaches, is the dispatch's work.
BPRED='/(int64)arg0 < 0/ { @ = count(); }'
# D's empty clause records the firing for the consumer, which prints the
# CPU and the probe: in bpftrace, a printf of those two.
BREC='{ printf("%d %s\n", cpu, probe); }'
BCLAUSES=('{ }' "$BREC" '/arg0 < 0/ { }' "$BPRED" '{ @ = count(); }'
	'{ @[func] = count(); }' '{ @ = hist(arg0); }')
if have_bpftrace; then
	for clause in "${BCLAUSES[@]}"; do
		row "bpftrace $clause" bench_loop calls bpftrace \
			-e "uprobe:$LOOP:bench_fn $clause" -c "$LOOP $N"
		BROW[$clause]=$ROW_I
	done
fi
rows_run
for clause in "${!DROW[@]}"; do
	i=${DROW[$clause]}
	DNS[$clause]=${RNS[i]} DPROG[$clause]=${RPROG[i]}
done
for clause in "${!BROW[@]}"; do
	i=${BROW[$clause]}
	BPROG[$clause]=${RPROG[i]}
done
NOPRE=${RPROG[NOPRE_ROW]}
TABLE_CV=$RUN_CV
have_bpftrace || echo "bpftrace is not installed: no comparison"
echo
echo "An empty clause in D records a firing (the default action), which"
echo "the consumer reads; /arg0 < 0/ { } is the dispatch alone.  bpftrace's"
echo "arg0 is unsigned, so that its /arg0 < 0/ is false when compiled and"
echo "its program for /arg0 < 0/ { } tests nothing (a load, r0 = 0, exit):"
echo "it is compared with $BPRED, the same"
echo "test.  The bare uprobe also runs bpftrace's program for /arg0 < 0/ { }"
echo "attached as dtrace attaches its own.  D's { } is compared with"
echo "bpftrace's printf of what the consumer prints of the record, the CPU and"
echo "the probe."

# The dispatch of /arg0 < 0/ { }, stage by stage: BPF ns per firing of a
# program that stops after each stage, and what the stage adds.
echo
printf 'dtrace /arg0 < 0/ { }, stage by stage (BPF ns per firing, %d runs)\n' \
	"$RUNS"
printf '%-44s %9s %7s\n' "program stops after" "BPF ns" "+ns"
prev=$PBARE
stage_row() {
	local label=$1 p
	shift
	p=$(prog_ns "$@")
	printf '%-44s %9.0f %+7.0f\n' "$label" "$p" "$(awk -v p="$p" \
		-v q="$prev" 'BEGIN { print p - q }')"
	prev=$p
}
SN=$((N < 100000 ? N : 100000))
export PROGSTAT_RUNS=$SN
for stage in empty activity mstate trampoline overlay dispatch; do
	DTRACE_BENCH_STOP=$stage stage_row "$stage" "$DTRACE" -q \
		-n "pid\$target:a.out:bench_fn:entry /arg0 < 0/ { }" \
		-c "$LOOP $SN"
done
DTRACE_BENCH_GENERIC=1 DTRACE_BENCH_NOPREFILTER=1 \
	stage_row "all (overlay lookup, bpf_loop)" \
	"$DTRACE" -q -n "pid\$target:a.out:bench_fn:entry /arg0 < 0/ { }" \
	-c "$LOOP $SN"
# above_bare LABEL NS: a program's figure beside the bare uprobe's
above_bare() {
	printf '%-44s %9s %7s\n' "$1" "$2" "$(awk -v p="$2" -v q="$PBARE" \
		'BEGIN { if (p == "-") print "-"; else printf "%+d", p - q }')"
}
above_bare "all (one overlay: straight-line)" "$NOPRE"
above_bare "all, prefilter (predicates on arguments)" \
	"${DPROG['/arg0 < 0/ { }']}"
# The prefilter as it was built before dt_opt.c (a call, the arguments
# copied to its stack and read back), optimized but still a call, and
# inline with the full path in the entry's function (which then saves the
# registers the full path uses).
for knob in NOPREOPT NOPREINLINE NOSPLIT; do
	above_bare "  the same, DTRACE_BENCH_$knob" "$(printf '%.0f' \
		"$(export "DTRACE_BENCH_$knob=1"; prog_ns "$DTRACE" -q \
		-n "pid\$target:a.out:bench_fn:entry /arg0 < 0/ { }" \
		-c "$LOOP $SN")")"
done

# @[probefunc] = count(), stage by stage: the firing up to the clause (as
# @ = count(), whose value is in the mstate), then the aggregation's update
# in its hash (DTRACE_BENCH_NOBYPRID) stopping after the key, after the
# lookup, and complete; then in its array by PRID (dt_rec.h), as it runs.
echo
printf 'dtrace @[probefunc] = count(), stage by stage (BPF ns per firing)\n'
printf '%-44s %9s %7s\n' "program stops after" "BPF ns" "+ns"
prev=$PBARE
stage_row "the clause called (@ = count())" "$DTRACE" -q \
	-n "pid\$target:a.out:bench_fn:entry { @ = count(); }" -c "$LOOP $SN"
clause_ns=$prev
for stage in key lookup; do
	DTRACE_BENCH_AGGSTOP=$stage stage_row "the hash: the $stage" "$DTRACE" \
		-q -n "pid\$target:a.out:bench_fn:entry { @[probefunc] = count(); }" \
		-c "$LOOP $SN"
done
DTRACE_BENCH_NOBYPRID=1 stage_row "the hash: the value updated" "$DTRACE" -q \
	-n "pid\$target:a.out:bench_fn:entry { @[probefunc] = count(); }" \
	-c "$LOOP $SN"
prev=$clause_ns
stage_row "the array by PRID: the value updated (all)" "$DTRACE" -q \
	-n "pid\$target:a.out:bench_fn:entry { @[probefunc] = count(); }" \
	-c "$LOOP $SN"
# The tables below run N calls again: with the stages' count, the program
# nearest it was the exec watch's (2 runs), not the probe's (N).
export PROGSTAT_RUNS=$N

# A function whose entry is a 5-byte nop (bench_fn5: bench_fn after one),
# which a kernel with the optimized uprobe turns into a call, beside
# bench_fn's push %rbp, which it emulates after a trap (issue 33).  Where
# that call would crash a forked child, the pid provider places probes
# there only when told (-x pid.nop5=place; the loop does not fork).
# nop5_forced FUNC WORD: NOP5_OPT=(-x pid.nop5=place), with a line that
# says why, when the pid provider would not place the entry probe of
# bench_loop's FUNC (called with WORD) on its 5-byte nop by itself: where
# the kernel's call would crash forked children (the loop does not fork).
nop5_forced() {
	NOP5_OPT=()
	case $("$DTRACE" -x debug -q -n "pid\$target:a.out:$1:entry { }" \
		-c "$LOOP 1 $2" 2>&1) in
	*"5-byte nop, which this kernel"*) NOP5_OPT=(-x pid.nop5=place)
		echo "(this kernel's optimized uprobes crash forked children: -x pid.nop5=place)" ;;
	esac
}

# loop_table TITLE WORD FUNC WHAT: the start of a table of bench_loop N
# WORD, headed TITLE, whose first row is the bare uprobe on FUNC's first
# instruction, WHAT.
loop_table() {
	printf '%s (%d calls, median of %d runs)\n' "$1" "$N" "$RUNS"
	BASE=$(firing_loop_ns bench_loop calls "$LOOP" "$N" "$2")
	BARE= PBARE=
	firing_header
	row "bare uprobe on $3's $4" bench_loop calls \
		"$FLOOR" run "$LOOP" "$3" -- "$LOOP" "$N" "$2"
}

# ratio2 A B: A / B with two decimals, "-" when either is missing.
ratio2() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a == "-" || b == "-" || b + 0 <= 0) print "-"
		else printf "%.2f", a / b }'
}

nop5_table() {
	echo
	nop5_forced bench_fn5 nop5
	loop_table "pid entry probes, push %rbp against a 5-byte nop" nop5 \
		bench_fn5 "5-byte nop"
	row "dtrace bench_fn5 { @ = count(); }" bench_loop calls \
		"$DTRACE" "${NOP5_OPT[@]}" -q \
		-n 'pid$target:a.out:bench_fn5:entry { @ = count(); }' \
		-c "$LOOP $N nop5"
	NOP5_ROW=$ROW_I
	row "dtrace bench_fn { @ = count(); } (push)" bench_loop calls \
		"$DTRACE" -q -n 'pid$target:a.out:bench_fn:entry { @ = count(); }' \
		-c "$LOOP $N"
	rows_run
	NOP5_RATIO=$(ratio2 "${RNS[NOP5_ROW]}" "${RNS[NOP5_ROW + 1]}")
}
nop5_table

# A function that begins with endbr64 (bench_fn_endbr: bench_fn after one,
# as -fcf-protection makes entries), which the kernel single-steps: the pid
# provider places its entry probe past it, on the push %rbp the kernel
# emulates, or with -x pid.entry=classic on it (the bare uprobe there is
# the floor of that placement); and bench_fn_endbr5, bench_fn5 after an
# endbr64 (-fcf-protection with -pg -mfentry -mnop-mcount), its probe past
# it on the 5-byte nop (forced where the kernel's call would crash forked
# children, as in the table above).
endbr_table() {
	echo
	nop5_forced bench_fn_endbr5 endbr5
	loop_table "pid entry probes on endbr64 entries, on it and past it" \
		endbr bench_fn_endbr endbr64
	row "dtrace { @ = count(); } on endbr64 (classic)" bench_loop calls \
		"$DTRACE" -x pid.entry=classic -q \
		-n 'pid$target:a.out:bench_fn_endbr:entry { @ = count(); }' \
		-c "$LOOP $N endbr"
	local classic_row=$ROW_I
	row "dtrace { @ = count(); } past it (push)" bench_loop calls \
		"$DTRACE" -q \
		-n 'pid$target:a.out:bench_fn_endbr:entry { @ = count(); }' \
		-c "$LOOP $N endbr"
	row "dtrace { @ = count(); } past it (5-byte nop)" bench_loop calls \
		"$DTRACE" "${NOP5_OPT[@]}" -q \
		-n 'pid$target:a.out:bench_fn_endbr5:entry { @ = count(); }' \
		-c "$LOOP $N endbr5"
	rows_run
	printf 'past endbr64 x on it: %s (push), %s (5-byte nop)\n' \
		"$(ratio2 "${RNS[classic_row + 1]}" "${RNS[classic_row]}")" \
		"$(ratio2 "${RNS[classic_row + 2]}" "${RNS[classic_row]}")"
}
endbr_table

# The goals of issue 15.
STATUS=0
echo
echo "goals (issue 15)"
noise_line "$TABLE_CV"
# goal LABEL VALUE LIMIT VERDICT: the goal VALUE <= LIMIT and its verdict;
# the status is 1 unless the verdict is met (within the noise or not).
goal() {
	printf '%s\n    %s <= %s: %s\n' "$1" "$2" "$3" "$4"
	[ "${4%% *}" = met ] || STATUS=1
}
# at_most VALUE LIMIT: met, missed, or unknown when one is missing.
at_most() {
	awk -v v="$1" -v l="$2" 'BEGIN {
		if (v == "-" || l == "-" || v == "" || l == "") print "unknown"
		else print (v + 0 <= l + 0) ? "met" : "missed" }'
}
# model CLAUSE: the modelled ratio of a dtrace configuration to the bare
# uprobe: (bare + BPF ns it adds) / bare.
model() {
	awk -v b="$BARE" -v p="${DPROG[$1]}" -v e="$PBARE" 'BEGIN {
		if (p == "-" || b + 0 <= 0) print "-"
		else printf "%.2f", (b + p - e) / b }'
}
wall() {
	fmt_ratio "${DNS[$1]}" "$BARE"
}
for g in '/arg0 < 0/ { }:1.1' '{ @ = count(); }:1.1' \
	'{ @[probefunc] = count(); }:1.2'; do
	c=${g%:*} m=$(model "$c")
	goal "dtrace $c: x bare, modelled (wall $(wall "$c"))" "$m" \
		"${g##*:}" "$(at_most "$m" "${g##*:}")"
done
if have_bpftrace; then
	for g in "{ }|$BREC" "/arg0 < 0/ { }|$BPRED" \
		'{ @ = count(); }|{ @ = count(); }' \
		'{ @[probefunc] = count(); }|{ @[func] = count(); }' \
		'{ @ = quantize(arg0); }|{ @ = hist(arg0); }'; do
		d=${g%|*} b=${g#*|}
		goal "dtrace $d against bpftrace $b: BPF ns" "${DPROG[$d]}" \
			"${BPROG[$b]}" "$(below_or_noise "${DPROG[$d]}" \
			"${BPROG[$b]}" "$TABLE_CV")"
	done
fi
goal "dtrace @ = count() on a 5-byte nop entry: x the same on push %rbp (issue 33)" \
	"$NOP5_RATIO" 0.35 "$(at_most "$NOP5_RATIO" 0.35)"
exit $STATUS
