#!/bin/bash
# SPDX-License-Identifier: MIT
# The exec gate (dtrace/gate/dt_gate.c): with "provider*" descriptions, programs
# whose files no process had mapped when tracing began are traced from their
# first instruction.  Each run uses fresh copies of a program and of the
# library it needs (found through RUNPATH $ORIGIN); the program fires first
# thing in main(), the library in its constructor, before main().  Every one
# of those first firings must be seen.  A fresh program that dlopen()s a
# fresh library later is still seen doing so (the exec watch leaves out the
# events of gated execs' start-up only).  Then Ctrl-Z: a stopped dtrace
# holds no exec (the program run meanwhile is named on stderr, as its first
# firings are lost), and the gate works again once dtrace continues.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
status=0

cat >lib.c <<'C'
#include <sys/sdt.h>
__attribute__((constructor)) static void lib_init(void)
{
	DTRACE_PROBE(exg_lib, ctor);
}
int lib_value(void) { return 42; }
C
cat >prog.c <<'C'
#include <sys/sdt.h>
int lib_value(void);
int main(void)
{
	DTRACE_PROBE1(exg_prog, first, lib_value());
	return 0;
}
C
cat >dl.c <<'C'
#include <sys/sdt.h>
#include <time.h>
void dl_fire(int n);
void dl_fire(int n)
{
	struct timespec ts = { 0, 50 * 1000000 };
	for (int i = 0; i < n; i++) {
		DTRACE_PROBE1(exg_dl, ping, i);
		nanosleep(&ts, NULL);
	}
}
C
cat >loader.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	usleep(100 * 1000);
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	void (*f)(int) = (void (*)(int))dlsym(h, "dl_fire");
	f(10);
	return 0;
}
C
mkdir -p build/sub &&
gcc -O2 -fPIC -shared -o build/sub/libexg.so lib.c &&
gcc -O2 -o build/prog prog.c -Lbuild/sub -lexg -Wl,-rpath,'$ORIGIN/sub' &&
gcc -O2 -fPIC -shared -o build/libdl.so dl.c &&
gcc -O2 -o build/loader loader.c -ldl ||
	exit 1

DTRACE_EXEC_STATS=1 "$DTRACE" -Z -q -n '
BEGIN { printf("ready\n"); }
exg_prog*:::first { printf("first %d %d\n", pid, arg0); }
exg_lib*:::ctor { printf("ctor %d %s\n", pid, probemod); }
exg_dl*:::ping { printf("ping %d %d\n", pid, arg0); }' >out 2>err &
dt=$!
for _ in $(seq 100); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
grep -q ready out || { cat err; kill $dt; exit 1; }

# Fresh copies: new inodes, which no uprobe covers yet.
run_fresh() {
	rm -rf "fresh$1" && cp -r build "fresh$1" || exit 1
	"./fresh$1/prog" &
	pids="$pids $!"
	wait $!
}
pids=""
for i in 1 2 3 4 5; do run_fresh $i; done
rm -rf fresh_dl && cp -r build fresh_dl || exit 1
./fresh_dl/loader "$PWD/fresh_dl/libdl.so" &
dlpid=$!
wait $dlpid

# Ctrl-Z: dtrace stops and lets execs go; a fresh program runs meanwhile.
kill -TSTP $dt
for _ in $(seq 50); do
	[ "$(awk '{print $3}' /proc/$dt/stat)" = T ] && break; sleep 0.1
done
[ "$(awk '{print $3}' /proc/$dt/stat)" = T ] || fail "dtrace did not stop on SIGTSTP"
rm -rf fresh_stopped && cp -r build fresh_stopped
timeout 5 ./fresh_stopped/prog || fail "an exec hung while dtrace was stopped"
kill -CONT $dt
sleep 0.5
run_fresh 6

kill -INT $dt
wait $dt

for p in $pids; do
	grep -qx "first $p 42" out || fail "the first firing of pid $p was missed"
	grep -qx "ctor $p libexg.so" out ||
		fail "the library constructor's firing in pid $p was missed"
done
for i in 7 8 9; do
	grep -qx "ping $dlpid $i" out ||
		fail "firing $i of the library dlopen'ed by a gated program was missed"
done
# Named on stderr: the program that ran unheld while dtrace was stopped,
# and none of those the gate held.
unheld='\(started before its probes were placed\|was not held\)'
grep -q "(.*/fresh_stopped/prog) $unheld" err ||
	fail "the program run while dtrace was stopped went without a word"
grep "(.*/fresh[0-9]/prog) $unheld" err && fail "a held program was said unheld"
grep -q "exec gate: .* [1-9][0-9]* held" err || fail "no exec held by the gate"
grep -q "0 not served in time" err || fail "an exec was let go unserved"
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
