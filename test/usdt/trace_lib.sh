# SPDX-License-Identifier: MIT
# trace_lib.sh: sourced by test/sh/usdt/usdt_trace_*.sh.  Builds the myapp
# programs of this directory with our own `dtrace -h` and `dtrace -G` (C and
# C++, -O2 and -O3 -flto, PIE and non-PIE, a shared library) into the
# test's scratch directory; the test-owned dtprobed comes from daemon_lib.sh.
#
# Provides: what daemon_lib.sh provides, and build_app NAME COMPILER SRC
# CFLAGS LDFLAGS, build_all, build_workers, has_line FILE REGEX, missed FILE
# PID FIRST END.
set -u
[ -x "${DTRACE:-}" ] || { echo "no dtrace"; exit 77; }
[ -x "$B/dtprobed" ] || { echo "no $B/dtprobed"; exit 77; }
[ -d /sys/fs/bpf ] || { echo "no bpffs"; exit 77; }
command -v cc >/dev/null && command -v c++ >/dev/null ||
	{ echo "no C or C++ compiler"; exit 77; }

INC=$TESTDIR/../include
. "$TESTDIR/usdt/daemon_lib.sh"

has_line() { grep -Eq "$2" "$1" 2>/dev/null; }

# missed FILE PID FIRST END: the firings i (FIRST <= i < END) of PID that
# FILE lacks, among lines "tick PID i" and "query PID i hello".
missed() {
	awk -v pid="$2" -v first="$3" -v end="$4" '
	$2 == pid && $1 == "tick" { tick[$3] = 1 }
	$2 == pid && $1 == "query" && $4 == "hello" { query[$3] = 1 }
	END { for (i = first; i < end; i++) {
		if (!(i in tick)) printf(" tick %d", i)
		if (!(i in query)) printf(" query %d", i) } }' "$1"
}

# kernel_optimizes_uprobes: whether the kernel turns a uprobe on a 5-byte
# nop into a call (its `uprobe` system call, 336 on x86-64, answers ENXIO
# when called from anywhere but its trampoline; ENOSYS without it).
kernel_optimizes_uprobes() {
	[ "$(uname -m)" = x86_64 ] &&
	python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
sys.exit(0 if libc.syscall(336) == -1 and ctypes.get_errno() == 6 else 1)' \
		2>/dev/null
}

# usdt_site_shift CMD DESC: the bytes from the note's address of DESC's
# site (myapp$target:::tick) in CMD to the instruction the usdt provider
# places its probe on by default: 1 on the 5-byte nop after the nop of
# <dtrace/usdt.h>, else 0 (-x debug says which).
usdt_site_shift() {
	if "$DTRACE" -x debug -q -n "$2 { }" -c "$1" 2>&1 >/dev/null |
		grep -q 'on the 5-byte nop'; then
		echo 1
	else
		echo 0
	fi
}

# The provider of test/usdt/prov.d with every stability attribute declared,
# so that -l -v shows them combined as DTrace combines them.
write_provider() {
	cp "$TESTDIR/usdt/prov.d" prov.d
	cat >>prov.d <<'D'
#pragma D attributes Stable/Stable/ISA provider myapp module
#pragma D attributes Stable/Unstable/Common provider myapp name
#pragma D attributes Unstable/Stable/Platform provider myapp args
D
}

# build_app NAME COMPILER SRC CFLAGS LDFLAGS (provider file: $PROV, else
# prov.d)
build_app() {
	local name=$1 c=$2 src=$3 cf=$4 lf=$5
	$c $cf -I"$INC" -I"$W" -c -o "$W/$name.o" "$src" &&
	"$DTRACE" -G -s "$W/${PROV:-prov.d}" -o "$W/${name}_prov.o" "$W/$name.o" &&
	$c $cf $lf -o "$W/$name" "$W/$name.o" "$W/${name}_prov.o" -ldl ||
		{ fail "building $name"; return 1; }
}

# build_workers: $W/workers from workers.c, with its own provider
# (workers.d: workers:::tick), which no other test's session matches.
build_workers() {
	cp "$TESTDIR/usdt/workers.d" . &&
	"$DTRACE" -h -s workers.d -o workers.h &&
	PROV=workers.d build_app workers cc "$TESTDIR/usdt/workers.c" "-O2" "" ||
		{ fail "building workers"; exit 1; }
}

build_all() {
	write_provider
	"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
	build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" &&
	build_app app_lto cc "$TESTDIR/usdt/app.c" "-O3 -flto" "" &&
	build_app app_nopie cc "$TESTDIR/usdt/app.c" "-O2 -fno-pie" "-no-pie" &&
	build_app app_cxx c++ "$TESTDIR/usdt/app.cc" "-O2" "" &&
	build_app lib.so cc "$TESTDIR/usdt/lib.c" "-O2 -fPIC" "-shared" ||
		exit 1
}

# trace_myapp: a session on every process's myapp probes, writing "tick PID
# N" and "query PID N STRING" lines to out (stderr to err), its pid in dt;
# returns once it is ready, 1 when it did not start.
trace_myapp() {
	"$DTRACE" -q -n 'BEGIN { printf("ready\n"); }
	myapp*:::tick { printf("tick %d %d\n", pid, args[0]); }
	myapp*:::query-start { printf("query %d %d %s\n", pid, args[1],
		copyinstr(args[0])); }' >out 2>err &
	dt=$!
	wait_for 10 has_line out '^ready$' || { cat err; fail "dtrace did not start"; return 1; }
}
