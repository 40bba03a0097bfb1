#!/bin/bash
# SPDX-License-Identifier: MIT
# An aggregation keyed by the probe's names counts a probe there was when
# tracing began in its array by PRID and one made while tracing (a library
# dlopen()ed, -Z) in its hash: printa() shows both, and merges them where
# their keys are the same string.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
command -v gcc >/dev/null || { echo "no gcc"; exit 77; }
status=0

cat >lib.c <<'C'
int lib_fn(int i);
int lib_fn(int i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}
C
cp "$TESTDIR/sh/lib/dlopen_loader.c" loader.c
gcc -O2 -fPIC -shared -o libpk.so lib.c && gcc -O2 -o loader loader.c -ldl ||
	exit 1

./loader "$PWD/libpk.so" go.dlopen go.call >loader.out &
l=$!
"$DTRACE" -Z -q -x debug -p $l -n '
BEGIN { printf("ready\n"); }
pid$target:loader:work:entry, pid$target:libpk.so:lib_fn:entry
{
	@n[probename] = count();
	@f[probefunc] = count();
}
END { printa("n %s %@d\n", @n); printa("f %s %@d\n", @f); }' >out 2>err &
dt=$!
pace_loader out err 'pid: process [0-9]*: its mappings changed' ||
	fail "dtrace never said it was ready and matched the library"
wait $dt
work=$(sed -n 's/^f work \([0-9]*\)$/\1/p' out)
[ -n "$work" ] && [ "$work" -gt 0 ] || fail "work's firings not counted"
grep -qx "f lib_fn 20" out || fail "the library's probe, made while tracing, not counted 20 times"
grep -qx "n entry $((${work:-0} + 20))" out ||
	fail "the two probes' entries not merged into one key"
[ "$(grep -c '^n ' out)" = 1 ] || fail "more than one key for probename"
[ "$(cat loader.out)" = 990 ] || fail "the target computed $(cat loader.out), not 990"
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
