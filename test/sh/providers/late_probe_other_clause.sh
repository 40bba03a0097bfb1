#!/bin/bash
# SPDX-License-Identifier: MIT
# A probe made while tracing runs its own clause even when the program of
# its kind was built, when tracing began, for the probes of another clause.
# Before, such a program held only the clauses of the probes there were at
# start, and a later probe of another clause fired its uprobe and printed
# nothing (the exec watch's test missed a dlopen'ed library whenever some
# other program with USDT probes ran as its session started).  The loader
# is paced by what dtrace says (ready, then the library's probes placed),
# not by time: a dtrace whose start a loaded kernel delays by seconds
# (another session closing hundreds of tracepoints) misses nothing.
#  1. usdt: a program of provider lco_a runs before dtrace starts; a program
#     of lco_b exec'ed and a library of lco_lib dlopen'ed while tracing are
#     traced by their own clauses.
#  2. pid: clauses on the target's own function (there at start) and on a
#     library it dlopen()s later (-Z): the library's clause fires too.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
status=0

cat >prog.c <<'C'
#include <sys/sdt.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	struct timespec ts = { 0, 50 * 1000000 };
	for (int i = 0; i < atoi(argv[1]); i++) {
#ifdef PROV_A
		DTRACE_PROBE1(lco_a, tick, i);
#else
		DTRACE_PROBE1(lco_b, tick, i);
#endif
		nanosleep(&ts, NULL);
	}
	return 0;
}
C
cat >lib.c <<'C'
#include <sys/sdt.h>
#include <time.h>
int lib_fn(int i);
int lib_fn(int i)
{
	DTRACE_PROBE1(lco_lib, ping, i);
	return i + 1;
}
C
cp "$TESTDIR/sh/lib/dlopen_loader.c" loader.c

# On a failure: dtrace's messages first, then what it printed, the lines
# of the function there at start counted rather than shown.
show_run() {
	echo "--- err"
	cat err
	echo "--- out ($(grep -c '^work ' out) lines of work)"
	grep -v '^work ' out
}
gcc -O2 -DPROV_A -o prog_a prog.c && gcc -O2 -o prog_b prog.c &&
gcc -O2 -fPIC -shared -o liblco.so lib.c && gcc -O2 -o loader loader.c -ldl ||
	exit 1

# 1. usdt
./prog_a 200 &
a=$!
"$DTRACE" -Z -q -x debug -n '
BEGIN { printf("ready\n"); }
lco_a*:::tick { printf("a %d %d\n", pid, arg0); }
lco_b*:::tick { printf("b %d %d\n", pid, arg0); }
lco_lib*:::ping { printf("lib %d %d\n", pid, arg0); }' >out 2>err &
dt=$!
for _ in $(seq 100); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
grep -q ready out || { cat err; kill $dt $a; exit 1; }
./prog_b 20 &
b=$!
./loader "$PWD/liblco.so" go.dlopen go.call >/dev/null &
l=$!
pace_loader out err 'liblco.so: on ' ||
	fail "usdt: dtrace never said it placed the library's probe"
wait $b $l
kill $a
sleep 0.2
kill -INT $dt
wait $dt
grep -q "^a $a " out || fail "the program running at start was not traced"
for i in 17 18 19; do
	grep -qx "b $b $i" out || fail "usdt: firing $i of the program exec'ed while tracing was missed"
	grep -qx "lib $l $i" out || fail "usdt: firing $i of the library dlopen'ed while tracing was missed"
done
[ $status = 0 ] || show_run

# 2. pid
saved=$status
rm -f go.dlopen go.call
./loader "$PWD/liblco.so" go.dlopen go.call >loader.out &
l=$!
"$DTRACE" -Z -q -x debug -p $l -n '
BEGIN { printf("ready\n"); }
pid$target:loader:work:entry { printf("work %d\n", arg0); }
pid$target:liblco.so:lib_fn:entry { printf("lib_fn %d\n", arg0); }' >out 2>err &
dt=$!
pace_loader out err 'pid: process [0-9]*: its mappings changed' ||
	fail "pid: dtrace never said it was ready and matched the library"
wait $dt
grep -q "^work " out || fail "pid: the target's own function was not traced"
for i in 17 18 19; do
	grep -qx "lib_fn $i" out || fail "pid: call $i of the library dlopen'ed while tracing was missed"
done
[ "$(cat loader.out)" = 990 ] || fail "pid: the target computed $(cat loader.out), not 990"
[ $status = $saved ] || show_run
exit $status
