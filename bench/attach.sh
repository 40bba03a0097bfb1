#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/attach.sh: time to attach and to tear down probes on every function
# entry of libc (issue 6).
#
#   dtrace  dtrace -n 'pid$target:libc.so.6::entry { }' -p PID, PID being a
#           sleeping process: from dtrace's start to its BEGIN output
#           (discovery, code generation, load and attach included), and
#           from its END output (BEGIN calls exit()) to its exit (detach
#           and clean-up).  Targets: under 0.3 s and under 0.5 s.
#   floor   bench/uprobe_floor.c: one uprobe_multi link of an empty BPF
#           program on the same libc entries through raw bpf() calls,
#           created and closed: what the kernel alone costs.
#   bpftrace (when installed) bpftrace 0.17 makes one perf-event uprobe per
#           function, which takes minutes for all of libc: it is given the
#           first NB (default 200) of the functions dtrace matched, and its
#           figures are extrapolated linearly to dtrace's count, labelled
#           as such.
#
#   sudo bench/attach.sh [RUNS [NB]]     (B=build-dir, default build/)
#
# Prints medians of RUNS runs (default 5; bpftrace runs once).  Exit
# status 1 when dtrace misses a target, 2 when something is missing.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
RUNS=${1:-5}
NB=${2:-200}
need_root
need_dtrace
build_floor
W=$(mktemp -d)
sleep 1000 &
TARGET=$!
trap 'kill $TARGET 2>/dev/null; rm -rf "$W"' EXIT
LIBC=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' /proc/$TARGET/maps)
if [ -z "$LIBC" ]; then
	echo "bench: no libc.so.6 in the maps of sleep(1)" >&2
	exit 2
fi

# stamp CMD...: runs CMD, writing each line of its standard output to
# $W/lines prefixed with the time it arrived (us); sets T0 (start), T1
# (exit) and RC (CMD's status).  Standard error goes to $W/err.
stamp() {
	T0=$(now_us)
	"$@" 2>"$W/err" | while IFS= read -r line; do
		echo "$(now_us) $line"
	done >"$W/lines"
	RC=${PIPESTATUS[0]}
	T1=$(now_us)
}

# arrival WORD: the arrival time of the first line that holds WORD.
arrival() {
	awk -v w="$1" '{ for (i = 2; i <= NF; i++) if ($i == w) {
		print $1; exit } }' "$W/lines"
}

# timed_session CMD...: one run; sets ATT_MS and DET_MS (empty on failure).
timed_session() {
	local tb te
	ATT_MS= DET_MS=
	stamp "$@"
	tb=$(arrival bench-begin)
	te=$(arrival bench-end)
	if [ "$RC" != 0 ] || [ -z "$tb" ] || [ -z "$te" ]; then
		return
	fi
	ATT_MS=$(awk -v a="$tb" -v b="$T0" 'BEGIN { print (a - b) / 1000 }')
	DET_MS=$(awk -v a="$T1" -v b="$te" 'BEGIN { print (a - b) / 1000 }')
}

BEGIN_END='BEGIN { printf("bench-begin\n"); exit(0); }
END { printf("bench-end\n"); }'

# --- dtrace -----------------------------------------------------------------
: >"$W/att"; : >"$W/det"
"$DTRACE" -q -n 'pid$target:libc.so.6::entry { }' -n "$BEGIN_END" \
	-p $TARGET >/dev/null 2>&1		# warm the page cache
for ((i = 0; i < RUNS; i++)); do
	timed_session "$DTRACE" -n 'pid$target:libc.so.6::entry { }' \
		-n "$BEGIN_END" -p $TARGET
	if [ -z "$ATT_MS" ]; then
		echo "bench: dtrace failed:" >&2
		head -n 5 "$W/err" >&2
		exit 1
	fi
	echo "$ATT_MS" >>"$W/att"
	echo "$DET_MS" >>"$W/det"
done
NSITES=$(sed -n "s/.*'pid\$target:libc.so.6::entry ' matched \([0-9]*\) probe.*/\1/p" \
	"$W/err" | head -n 1)
SKIPPED=$(grep -o '[0-9]* probes skipped' "$W/err" | head -n 1)
D_ATT=$(median <"$W/att")
D_DET=$(median <"$W/det")

# --- kernel floor -------------------------------------------------------------
# libc's local functions are in its separate debug file, as dtrace finds it
# (by build-id); the floor reads the same symbols when it is there.
DEBUGFILE=
id=$(readelf -n "$LIBC" 2>/dev/null | awk '/Build ID:/ { print $3 }')
f=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -n "$id" ] && [ -r "$f" ] && DEBUGFILE=$f
"$FLOOR" attach "$LIBC" 0 "$DEBUGFILE" "$RUNS" >"$W/floor" 2>&1 || {
	echo "bench: floor failed: $(head -n 1 "$W/floor")" >&2
	exit 1
}
awk '/^floor [0-9]+ sites/ { print $5 }' "$W/floor" >"$W/fatt"
awk '/^floor [0-9]+ sites/ { print $8 }' "$W/floor" >"$W/fdet"
F_N=$(awk '/^floor [0-9]+ sites/ { print $2; exit }' "$W/floor")
F_ATT=$(median <"$W/fatt")
F_DET=$(median <"$W/fdet")

printf '%s: every function entry (median of %d runs)\n' "$LIBC" "$RUNS"
printf '%-34s %7s %12s %12s\n' "" "sites" "attach ms" "teardown ms"
printf '%-34s %7s %12.1f %12.1f\n' "dtrace (start to BEGIN, END to exit)" \
	"${NSITES:-?}" "$D_ATT" "$D_DET"
printf '%-34s %7s %12.1f %12.1f\n' "kernel floor (one uprobe_multi)" \
	"$F_N" "$F_ATT" "$F_DET"
[ -n "$SKIPPED" ] && echo "  (dtrace: $SKIPPED, see its message)"
printf 'ratio dtrace / floor: attach %sx, teardown %sx\n' \
	"$(fmt_ratio "$D_ATT" "$F_ATT")" "$(fmt_ratio "$D_DET" "$F_DET")"

# --- bpftrace -----------------------------------------------------------------
# bpftrace_run K: bpftrace on the first K names; sets ATT_MS, DET_MS.
bpftrace_run() {
	local probes
	probes=$(head -n "$1" "$W/names" | sed "s|^|uprobe:$LIBC:|" |
		paste -sd, -)
	timed_session bpftrace -B line -p $TARGET -e "$probes { }
		BEGIN { printf(\"bench-begin\\n\"); exit(); }
		END { printf(\"bench-end\\n\"); }"
}

if have_bpftrace && [ -n "$NSITES" ] && [ "$NB" -ge 8 ]; then
	# Functions of the dynamic symbol table the kernel accepts, one per
	# address; bpftrace's uprobes are limited to the sleeping target (-p).
	"$FLOOR" names "$LIBC" "$NB" >"$W/names"
	nb=$(wc -l <"$W/names")
	nsmall=$((nb / 4))
	bpftrace_run "$nsmall"
	a1=$ATT_MS d1=$DET_MS
	bpftrace_run "$nb"
	if [ -z "$a1" ] || [ -z "$ATT_MS" ]; then
		echo "bpftrace: not available: $(head -n 1 "$W/err")"
	else
		printf '%-34s %7s %12.1f %12.1f\n' "bpftrace (measured)" \
			"$nsmall" "$a1" "$d1"
		printf '%-34s %7s %12.1f %12.1f\n' "bpftrace (measured)" "$nb" \
			"$ATT_MS" "$DET_MS"
		# the cost per site between the two sizes, carried on to
		# dtrace's number of probes
		extra='BEGIN { v = m + (m - s) / (k - j) * (n - k);
			print v < m ? m : v }'
		B_ATT=$(awk -v m="$ATT_MS" -v s="$a1" -v k="$nb" -v j="$nsmall" \
			-v n="$NSITES" "$extra")
		B_DET=$(awk -v m="$DET_MS" -v s="$d1" -v k="$nb" -v j="$nsmall" \
			-v n="$NSITES" "$extra")
		printf '%-34s %7s %12.0f %12.0f\n' \
			"bpftrace (extrapolated, linear)" "$NSITES" "$B_ATT" \
			"$B_DET"
		printf 'ratio bpftrace (extrapolated) / dtrace: attach %sx,' \
			"$(fmt_ratio "$B_ATT" "$D_ATT")"
		printf ' teardown %sx\n' "$(fmt_ratio "$B_DET" "$D_DET")"
	fi
elif ! have_bpftrace; then
	echo "bpftrace is not installed: no comparison"
fi

status=0
if awk -v v="$D_ATT" 'BEGIN { exit !(v >= 300) }'; then
	echo "MISSED: dtrace attaches in 0.3 s or more"
	status=1
fi
if awk -v v="$D_DET" 'BEGIN { exit !(v >= 500) }'; then
	echo "MISSED: dtrace tears down in 0.5 s or more"
	status=1
fi
exit $status
