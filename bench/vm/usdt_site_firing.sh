#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/vm/usdt_site_firing.sh: run inside the test virtual machine by
# bench/sites_vm.sh; prints its figures on lines starting "figure: ", and
# fails when auto does not keep a USDT site's classic placement there.
#
# A site of <dtrace/usdt.h> (bench_usdt_nop5: a nop, then a 5-byte nop)
# with its probe on the nop the note names (classic), on the 5-byte nop
# (forced, -x usdt.sitemode=nop5) and where auto puts it, which must be
# the classic placement on a kernel without the optimized uprobe; and a
# pid entry on a function that begins with endbr64 (bench_loop's
# bench_fn_endbr), on the endbr64 (-x pid.entry=classic) and past it
# (auto).  The configurations of a table run in rotated rounds, so that a
# drift of the host's load falls on all alike; the figures are the
# medians.  Emulation (TCG) makes every figure larger than on hardware:
# the ratios to the classic placement are what compare.
set -u
N=${N:-50000}
RUNS=${RUNS:-5}
T=$(mktemp -d)

# table PROG BASE-CMD -- LABEL CMD -- LABEL CMD...: each CMD (a string,
# evaluated) run RUNS times in rotated rounds, the loop's line being
# "PROG N WORD T ns"; prints ns per firing above BASE-CMD's loop and the
# ratio to the first configuration's.
table() {
	local prog=$1 base=$2 n r j k i
	shift 2
	local labels=() cmds=()
	while [ $# -ge 2 ]; do
		labels+=("$1") cmds+=("$2")
		shift 2
	done
	n=${#cmds[@]}
	rm -f "$T"/t.*
	for ((r = 0; r < RUNS; r++)); do
		for ((j = -1; j < n; j++)); do	# -1: the untraced loop
			if [ $j -lt 0 ]; then k=base; c=$base
			else k=$(((j + r) % n)); c=${cmds[k]}; fi
			eval "$c" </dev/null 2>/dev/null |
				awk -v p="$prog" '$1 == p { print $4 }' >>"$T/t.$k"
		done
	done
	median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
	local b first= ns
	b=$(median "$T/t.base")
	printf 'figure: %-44s %12s %10s\n' configuration ns/firing "x classic"
	for ((i = 0; i < n; i++)); do
		ns=$(awk -v t="$(median "$T/t.$i")" -v b="$b" -v n="$N" \
			'BEGIN { if (t == "") print "-"; else printf "%.1f", (t - b) / n }')
		[ -n "$first" ] || first=$ns
		printf 'figure: %-44s %12s %10s\n' "${labels[i]}" "$ns" \
			"$(awk -v a="$ns" -v b="$first" 'BEGIN {
				if (a != "-" && b > 0) printf "%.2f", a / b; else print "-" }')"
	done
}
# placement DEBUG-REGEX DTRACE-ARGS...: the placement -x debug names
placement() {
	local re=$1
	shift
	"$DTRACE" -x debug -q "$@" 2>&1 >/dev/null | sed -n "s/.*$re//p" | head -n 1
}

USDT=$PROGS/bench_usdt_nop5
echo "figure: $(uname -r) under TCG: ns per firing above the untraced loop, $N firings, median of $RUNS runs;"
echo "figure: the ratios, to the classic placement, are what compare"
echo "figure:"
echo "figure: benchnop:tick, a site of <dtrace/usdt.h> (a nop, then a 5-byte nop), @ = count()"
auto=$(placement ': on ' -n 'benchnop$target:::tick { }' -c "$USDT 1")
echo "figure: auto placement: $auto"
case $auto in
"the nop the note names (classic"*) ;;
*)	echo "auto does not keep the classic placement on a kernel that does not optimize uprobes"
	exit 1 ;;
esac
clause='benchnop$target:::tick { @ = count(); }'
table bench_usdt_nop5 '"$USDT" $N' \
	"usdt.sitemode=classic" '"$DTRACE" -x usdt.sitemode=classic -q -n "$clause" -c "$USDT $N"' \
	"usdt.sitemode=auto" '"$DTRACE" -x usdt.sitemode=auto -q -n "$clause" -c "$USDT $N"' \
	"usdt.sitemode=nop5 (forced)" '"$DTRACE" -x usdt.sitemode=nop5 -q -n "$clause" -c "$USDT $N"'

LOOP=$PROGS/bench_loop
echo "figure:"
echo "figure: pid\$target:a.out:bench_fn_endbr:entry (endbr64, then push %rbp), @ = count()"
echo "figure: auto placement: $(placement ': placed ' -n 'pid$target:a.out:bench_fn_endbr:entry { }' -c "$LOOP 1 endbr")"
clause='pid$target:a.out:bench_fn_endbr:entry { @ = count(); }'
table bench_loop '"$LOOP" $N endbr' \
	"pid.entry=classic (on endbr64)" '"$DTRACE" -x pid.entry=classic -q -n "$clause" -c "$LOOP $N endbr"' \
	"pid.entry=auto (past it, on push)" '"$DTRACE" -x pid.entry=auto -q -n "$clause" -c "$LOOP $N endbr"'
rm -rf "$T"
