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
# 3. The two unwinders (-x unwinder=libdw, libunwind) on the same stacks,
#    their runs interleaved (the machine may be busy): stacks per second
#    as in 2 (K stacks, median of RUNS) but of user and system CPU time
#    (libunwind's cache locks block signals, a system call each), and the
#    frames of the first stack that equal gdb's (from the top, as
#    -x noresolve prints them; gdb unwinds the same program stopped at the
#    same instruction: nothing else may trace it meanwhile, a uprobe there
#    hides gdb's breakpoint), of bench/unwind_nofp (C, -O2
#    -fomit-frame-pointer, 31 frames), bench/unwind_throw (C++: a throw's
#    stack at __cxa_throw, and one in the catch block), and python3.11
#    recursing through C (bench/unwind_rec.py).  Copies of 15k
#    (-x ustackbytes) hold them whole.
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
		user_once "$@"
	done | median
}
user_once() {	# CMD...: its user CPU time, in seconds
	/usr/bin/time -f '%U' -o "$W/time" "$@" >/dev/null 2>"$W/err" \
		</dev/null
	tail -n 1 "$W/time"
}
cpu_once() {	# CMD...: its user and system CPU times, in seconds
	/usr/bin/time -f '%U %S' -o "$W/time" "$@" >/dev/null 2>"$W/err" \
		</dev/null
	tail -n 1 "$W/time"
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

# 3. the unwinders side by side
UW_CASES=(	# label|command (given a count)|probe|gdb's breakpoint
	"C -fomit-frame-pointer|$B/bench/unwind_nofp|pid\$target:a.out:leaf:entry|*leaf"
	"C++ at __cxa_throw|$B/bench/unwind_throw|pid\$target:libstdc++.so.6:__cxa_throw:entry|__cxa_throw"
	"C++ in a catch block|$B/bench/unwind_throw|pid\$target:a.out:handled:entry|*handled"
	"python3.11 recursion|/usr/bin/python3.11 $ROOT/bench/unwind_rec.py|pid\$target:libc.so.6:getpid:entry|getpid"
)
UW_OPTS=(-q -x ustackbytes=15k -x bufsize=512m)

# uw_build: the C and C++ programs, into $B/bench/
uw_build() {
	build_helper unwind_nofp -fomit-frame-pointer -g
	if [ ! -x "$B/bench/unwind_throw" ] ||
	   [ "$ROOT/bench/unwind_throw.cc" -nt "$B/bench/unwind_throw" ]; then
		${CXX:-g++} -O2 -g -fomit-frame-pointer -Wall -Wextra \
			-o "$B/bench/unwind_throw" "$ROOT/bench/unwind_throw.cc"
	fi
}

# uw_dtrace_frames UNWINDER CMD PROBE: the first stack's frames, one a line
uw_dtrace_frames() {
	"$DTRACE" "${UW_OPTS[@]}" -x noresolve -x unwinder="$1" -c "$2 1" \
		-n "$3 { ustack(); exit(0); }" 2>/dev/null |
		sed -n 's/^ *\([^ ]*:0x[0-9a-f]*\)$/\1/p'
}

# uw_gdb_frames CMD BREAK: gdb's frames at the first stop, one a line
uw_gdb_frames() {
	# shellcheck disable=SC2086	# CMD is a command and its arguments
	gdb -batch -nx -ex 'set breakpoint pending on' \
		-ex 'set backtrace past-main on' -ex 'set backtrace past-entry on' \
		-ex "break $2" -ex run -ex "source $ROOT/bench/unwind_gdb.py" \
		--args $1 1 </dev/null 2>/dev/null | sed -n 's/^FRAME //p'
}

# uw_right FILE REF: the lines of FILE equal to REF's, from the first
# until one differs, "/" REF's lines
uw_right() {
	awk 'NR == FNR { ref[++n] = $0; next }
	     !bad && ref[FNR] == $0 { ok++; next }
	     { bad = 1 }
	     END { printf "%d/%d", ok, n }' "$2" "$1"
}

# uw_rate LABEL-TIMES COLUMN: stacks/s from the median CPU times of
# $W/t_LABEL over $W/t_plain's; COLUMN 1: user time, 2: user and system
uw_rate() {
	local t b
	t=$(awk -v c="$2" '{ print c == 1 ? $1 : $1 + $2 }' "$W/t_$1" | median)
	b=$(awk -v c="$2" '{ print c == 1 ? $1 : $1 + $2 }' "$W/t_plain" | median)
	awk -v t="$t" -v b="$b" -v k="$K" 'BEGIN {
		if (t > b) printf "%.0f", k / (t - b); else printf "-" }'
}

# uw_times CMD PROBE: one run of each, interleaved: CPU times into $W/t_*
uw_times() {
	local u
	cpu_once "$DTRACE" "${UW_OPTS[@]}" -n "$2 { trace(1); }" -c "$1 $K" \
		>>"$W/t_plain"
	for u in libdw libunwind; do
		cpu_once "$DTRACE" "${UW_OPTS[@]}" -x unwinder=$u \
			-n "$2 { ustack(); }" -c "$1 $K" >>"$W/t_$u"
	done
}

uw_compare() {
	local c label cmd probe brk i u
	printf '\nunwinders on the same stacks: %d stacks printed; stacks/s from user and\n' "$K"
	printf 'system CPU time (and user alone), median of %d interleaved runs; frames\n' "$RUNS"
	printf 'of the first stack equal to gdb'"'"'s\n\n'
	printf '%-26s %9s %9s %9s %9s %7s %7s\n' "" "libdw" "libunwind" \
		"libdw" "libunwind" "libdw" "libunw."
	printf '%-26s %9s %9s %9s %9s %7s %7s\n' "program" "stacks/s" "stacks/s" \
		"user" "user" "frames" "frames"
	for c in "${UW_CASES[@]}"; do
		IFS='|' read -r label cmd probe brk <<<"$c"
		uw_gdb_frames "$cmd" "$brk" >"$W/gdb"
		for u in libdw libunwind; do
			uw_dtrace_frames $u "$cmd" "$probe" >"$W/$u"
		done
		: >"$W/t_plain"; : >"$W/t_libdw"; : >"$W/t_libunwind"
		for ((i = 0; i < RUNS; i++)); do
			uw_times "$cmd" "$probe"
		done
		printf '%-26s %9s %9s %9s %9s %7s %7s\n' "$label" \
			"$(uw_rate libdw 2)" "$(uw_rate libunwind 2)" \
			"$(uw_rate libdw 1)" "$(uw_rate libunwind 1)" \
			"$(uw_right "$W/libdw" "$W/gdb")" \
			"$(uw_right "$W/libunwind" "$W/gdb")"
	done
}
if ! command -v gdb >/dev/null || ! command -v "${CXX:-g++}" >/dev/null ||
   [ ! -x /usr/bin/python3.11 ]; then
	echo "gdb, g++ or /usr/bin/python3.11 is missing: no comparison of the unwinders"
	exit 0
fi
uw_build
uw_compare
exit 0
