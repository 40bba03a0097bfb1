# SPDX-License-Identifier: MIT
# test_lib.sh: sourced first by every shell test (test/sh/AREA/NAME.sh), as
#   . "$TESTDIR/sh/lib/test_lib.sh"
# test/run.sh exports TESTDIR (the test/ directory), DTRACE, B and
# DTRACE_PLUGIN_PATH, and runs the test in a scratch directory; a test
# exits 0 when it passes, 77 when it skips, anything else when it fails.
#
# Provides:
#   set -u, and status=0: a test that goes on after a failure ends with
#                 `exit $status`
#   fail MSG...   says "FAIL: MSG" and marks the test failed; it goes on
#   fail_run MSG [EXPECTED]
#                 the run that went wrong shown (its exit status $rc, its
#                 files out and err, what was expected), and the test ends
#                 failed: for the tests whose later steps need this one
#   need_dtrace   skip without $DTRACE
#   need_prog NAME     T=$B/test/progs/NAME, the program the test traces;
#                      skip without it
#   need_exec FILE...  skip without these executables
#   need_cmd CMD...    skip without these commands
#   need_sdt      skip without gcc and <sys/sdt.h>, which build_sdt needs
#   build_sdt OUT SRC [GCC-OPTION...]
#                 a program with <sys/sdt.h> probes, built with gcc -O2;
#                 the test ends failed when it does not build
#   stage_install what $B holds installed into ./stage (make install-files
#                 DESTDIR=$PWD/stage PREFIX=/usr/local): the headers a
#                 plugin is built against, as a third party's would be;
#                 the test ends failed when it cannot
#   wait_line FILE REGEX [TRIES]
#                 until FILE has a line matching REGEX (TRIES of 50 ms,
#                 100 by default); false when it never does
#   pace_loader OUT ERR REGEX
#                 for sh/lib/dlopen_loader.c started with the files
#                 go.dlopen and go.call: lets it dlopen() its library once
#                 dtrace printed "ready" in OUT, and call it once dtrace's
#                 -x debug said in ERR (REGEX) that it placed the library's
#                 probes; false, with both files made, when either never
#                 comes within 30 s
set -u
status=0

fail() { echo "FAIL: $*"; status=1; }

fail_run() {
	echo "$1 (exit ${rc:-?}); stdout:"; head -n 100 out 2>/dev/null
	echo "stderr:"; cat err 2>/dev/null
	[ $# -lt 2 ] || { echo "expected:"; echo "$2"; }
	exit 1
}

need_dtrace() {
	[ -x "${DTRACE:-}" ] || { echo "no dtrace"; exit 77; }
}

need_exec() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || { echo "no $f"; exit 77; }
	done
}

need_prog() {
	T=$B/test/progs/$1
	need_exec "$T"
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || { echo "no $c"; exit 77; }
	done
}

need_sdt() {
	command -v gcc >/dev/null &&
		[ -r /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
		{ echo "no gcc or <sys/sdt.h>"; exit 77; }
}

build_sdt() {
	local out=$1 src=$2
	shift 2
	gcc -O2 "$@" -o "$out" "$src" || { echo "cannot build $out"; exit 1; }
}

# build_usdt OUT PROV.d SRC.c: a program with the USDT probes of PROV.d,
# built as an application does (dtrace -h, cc, dtrace -G, link); exits 1
# when it cannot.
build_usdt() {
	local out=$1 prov=$2 src=$3 h=${2%.d}.h
	"$DTRACE" -h -s "$prov" -o "$h" &&
		cc -O2 -I"$TESTDIR/../include" -I. -c -o "$out.o" "$src" &&
		"$DTRACE" -G -s "$prov" -o "${out}_prov.o" "$out.o" &&
		cc -o "$out" "$out.o" "${out}_prov.o" ||
		{ echo "cannot build $out"; exit 1; }
}

stage_install() {
	make -s -C "$TESTDIR/.." install-files B="$B" DESTDIR="$PWD/stage" \
		PREFIX=/usr/local >install.log 2>&1 || { cat install.log; exit 1; }
}

wait_line() {
	local _
	for _ in $(seq "${3:-100}"); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# wait_after FILE FIRST THEN [TRIES]: wait_line for a line matching THEN
# that comes after one matching FIRST (a step, then its effect: a
# probe's site chosen, then the links made while tracing).
wait_after() {
	local _
	for _ in $(seq "${4:-100}"); do
		sed -n "/$2/,\$p" "$1" 2>/dev/null | grep -q "$3" && return 0
		sleep 0.05
	done
	return 1
}

pace_loader() {
	local rc=0
	wait_line "$1" '^ready$' 600 || rc=1
	touch go.dlopen
	[ $rc = 0 ] && wait_line "$2" "$3" 600 || rc=1
	touch go.call
	return $rc
}
