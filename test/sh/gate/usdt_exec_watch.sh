#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# The exec watch (dtrace/gate/dt_exec.c) with a "provider*" description, the
# exec gate turned off (usdt_exec_gate.sh tests the gate):
#  1. a program file that no process had mapped when tracing began (copied
#     after dtrace started) is noticed at exec and traced;
#  2. a library with probes that a process started later dlopen()s is
#     noticed through the dynamic loader's hook and traced.
# The first few milliseconds after exec (the time to place the uprobe,
# ~15 ms on an idle development machine) are not covered, and on a loaded
# machine (other tests compiling in parallel: every exec is an event to
# look at) the watch can lag further: so the test asks for the firings at
# the end of each process's life, spaced well apart, and for the exec
# watch's own statistics to show the attach.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
status=0
build_sdt built "$TESTDIR/progs/sdt_args.c" -g
cat >lib.c <<'C'
#include <sys/sdt.h>
#include <time.h>
void lib_fire(int n);
void lib_fire(int n)
{
	struct timespec ts = { 0, 50 * 1000000 };
	for (int i = 0; i < n; i++) {
		DTRACE_PROBE1(exw_lib, ping, i);
		nanosleep(&ts, NULL);
	}
}
C
cat >main.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	usleep(200 * 1000);
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) { fprintf(stderr, "%s\n", dlerror()); return 1; }
	void (*f)(int) = (void (*)(int))dlsym(h, "lib_fire");
	f(40);
	dlclose(h);
	return 0;
}
C
gcc -O2 -fPIC -shared -o libbuilt.so lib.c && gcc -O2 -o loader main.c -ldl ||
	exit 1

# The scenario; sets status.
scenario() {
	status=0
	DTRACE_EXEC_STATS=1 "$DTRACE" -Z -q -x execgate=off -n '
	sdt_test*:::many { printf("many %s %d %d\n", probemod, pid, arg0); }
	exw_lib*:::ping { printf("ping %s %s %d %d\n", probemod, probefunc, pid, arg0); }' \
		>out 2>err &
	dt=$!
	sleep 1.5
	# Fresh files: no process has mapped them, no uprobe covers them.
	rm -f fresh_prog libfresh.so
	cp built fresh_prog && cp libbuilt.so libfresh.so || exit 1
	./fresh_prog 20 100 >/dev/null &
	p1=$!
	./loader "$PWD/libfresh.so" &
	p2=$!
	wait $p1 $p2
	sleep 0.3
	kill -INT $dt
	wait $dt

	for i in 17 18 19; do
		grep -qx "many fresh_prog $p1 $i" out ||
			{ echo "firing $i of the new program was missed"; status=1; }
	done
	for i in 37 38 39; do
		grep -qx "ping libfresh.so lib_fire $p2 $i" out ||
			{ echo "firing $i of the dlopen'ed library was missed"; status=1; }
	done
	grep -q "exec watch: .* [1-9][0-9]* placed probes" err ||
		{ echo "no attach counted by the exec watch"; status=1; }
	[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
}

# The dlopen'ed library went unseen now and then: when another program
# with USDT probes ran as the session started, the usdt program was built
# for its clause alone (late_probe_other_clause.sh).
scenario
grep "exec watch" err
exit $status
