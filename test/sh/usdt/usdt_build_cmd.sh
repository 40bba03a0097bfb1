#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 90
# dtrace -h and dtrace -G as build systems call them: default output names
# next to the script, C and C++ at -O2, -O3 -flto, PIE and non-PIE, a shared
# library; the stapsdt notes (readelf) and bpftrace see the probes; -G runs
# twice, leaves its inputs untouched, accepts -64 and no object at all
# (systemtap's -G does), and fails clearly on an
# input that is not ELF, has no probes or uses an undeclared probe, and on a
# provider file with a mistake (with its line).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v cc >/dev/null && command -v c++ >/dev/null || exit 77
INC=$TESTDIR/../include

cp "$TESTDIR/usdt/prov.d" "$TESTDIR/usdt/app.c" "$TESTDIR/usdt/lib.c" .
cp app.c app.cc

# -h: default output prov.h next to the script
mkdir sub && cp prov.d sub/
"$DTRACE" -h -s sub/prov.d || fail "dtrace -h"
[ -f sub/prov.h ] || fail "-h default output is not sub/prov.h"
"$DTRACE" -h -s prov.d -o prov.h || fail "dtrace -h -o"
grep -q '^#define	MYAPP_QUERY_START(arg0, arg1)' prov.h || fail "macro name"
grep -q '^#define	MYAPP_QUERY_START_ENABLED()' prov.h || fail "enabled macro"

# build NAME COMPILER SRC CFLAGS LDFLAGS
build() {
	local name=$1 c=$2 src=$3 cf=$4 lf=$5
	$c $cf -I"$INC" -I. -c -o "$name.o" "$src" || { fail "compile $name"; return; }
	cp "$name.o" "$name.o.orig"
	"$DTRACE" -G -64 -s prov.d -o "${name}_prov.o" "$name.o" || { fail "-G $name"; return; }
	"$DTRACE" -G -s prov.d -o "${name}_prov2.o" "$name.o" || fail "-G twice $name"
	cmp -s "$name.o" "$name.o.orig" || fail "-G modified $name.o"
	$c $cf $lf -o "$name" "$name.o" "${name}_prov.o" -ldl || fail "link $name"
}
build app cc app.c "-O2" ""
build app_lto cc app.c "-O3 -flto" ""
build app_nopie cc app.c "-O2 -fno-pie" "-no-pie"
build app_cxx c++ app.cc "-O2" ""
build lib.so cc lib.c "-O2 -fPIC" "-shared"

for p in app app_lto app_nopie app_cxx; do
	n=$(readelf -n "$p" | grep -c 'Provider: myapp')
	[ "$n" -ge 3 ] || fail "$p: $n myapp notes"
	readelf -n "$p" | grep -q 'Arguments: -4@.* 8@' || fail "$p: argument spec"
	# It says nothing, but "enabled": a session that traces
	# myapp*:::query-start (another test, running at the same time)
	# raises the probe's semaphore in every process, this one's too.
	out=$(DTPROBED_SOCKET=$PWD/none ./"$p" 2 2>&1) || fail "$p exit status"
	[ -z "$(printf '%s\n' "$out" | grep -vx -e enabled -e '')" ] ||
		fail "$p printed: $out"
done
readelf -n lib.so | grep -q 'Name: query__start' || fail "lib.so notes"

if command -v bpftrace >/dev/null; then
	l=$(bpftrace -l "usdt:$PWD/app:*" 2>&1)
	for pr in tick query__start noargs; do
		echo "$l" | grep -q ":myapp:$pr\$" || fail "bpftrace does not list $pr"
	done
fi

# -G of the script alone, as systemtap's -G and the builds that call it
# (glib's): the object defines the semaphores and registers the sites it
# finds at run time
"$DTRACE" -G -s prov.d -o alone_prov.o || fail "-G without objects"
cc -O2 -I"$INC" -I. -o app_alone app.c alone_prov.o -ldl ||
	fail "link with the object of -G without objects"
nm alone_prov.o | grep -q ' myapp_tick_semaphore$' ||
	fail "-G without objects defines no semaphore"
out=$(DTPROBED_SOCKET=$PWD/none ./app_alone 2 2>&1) || fail "app_alone exit status"

# -G default output: prov.o next to the script
rm -f prov.o
"$DTRACE" -G -s prov.d app.o || fail "-G default output"
[ -f prov.o ] || fail "-G default output is not prov.o"

# errors: clear message, inputs untouched, no output
echo "not an object" >notelf.o
cp notelf.o notelf.o.orig
"$DTRACE" -G -s prov.d -o bad.o notelf.o 2>err && fail "-G accepted a text file"
grep -q 'not an ELF file' err || { cat err; fail "message for a non-ELF input"; }
cmp -s notelf.o notelf.o.orig || fail "non-ELF input modified"
[ -f bad.o ] && fail "output written on error"

echo 'int f(int x) { return x; }' | cc -x c -c -o noprobes.o -
"$DTRACE" -G -s prov.d -o bad.o noprobes.o 2>err && fail "-G accepted no probes"
grep -q 'no probe sites of provider myapp' err || { cat err; fail "no-probes message"; }

printf '#include <dtrace/usdt.h>\nDTRACE_USDT_DECLARE_SEMA(myapp, bogus);\nvoid f(void) { DTRACE_USDT_PROBE0(myapp, bogus); }\n' |
	cc -x c -I"$INC" -c -o undecl.o -
"$DTRACE" -G -s prov.d -o bad.o undecl.o 2>err && fail "-G accepted an undeclared probe"
grep -q 'myapp:::bogus is used but not declared' err || { cat err; fail "undeclared message"; }

printf 'provider broken {\n\tprobe ok(int);\n\tprobe bad(int\n};\n' >broken.d
"$DTRACE" -h -s broken.d -o broken.h 2>err && fail "-h accepted a broken provider"
grep -q 'line [34]' err || { cat err; fail "no line in the error"; }
[ -f broken.h ] && fail "header written on error"

exit $status
