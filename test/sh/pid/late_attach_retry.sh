#!/bin/bash
# SPDX-License-Identifier: MIT
# A uprobe link the kernel refuses while tracing (a probe placed late, for
# a program started after dtrace) is asked for again, and each refusal is
# reported by the probe's name: dtrace's DTRACE_FAULT_ATTACH=N makes the
# kernel's answer to the first N link requests made while tracing ENOMEM,
# as under memory pressure.
#  1. Two refusals: two "trying again" lines naming the probe, then the
#     link is made at the third try (said so), and the program's last
#     firings are traced.
#  2. Every request refused: the site is given up after 5 tries, the last
#     line says "not traced", nothing is traced, tracing goes on (status 0).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt

cat >prog.c <<'C'
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>
int main(int argc, char **argv)
{
	struct timespec ts = { 0, 50 * 1000000 };
	int n = atoi(argv[1]);

	for (int i = 0; i < n; i++) {
		DTRACE_PROBE1(lateretry, tick, i);
		nanosleep(&ts, NULL);
	}
	return 0;
}
C
build_sdt prog prog.c

# One session with N refusals; the program starts after tracing began.
run() {
	DTRACE_FAULT_ATTACH=$1 "$DTRACE" -Z -q -n '
	BEGIN { printf("ready\n"); }
	lateretry*:::tick { printf("tick %d %d\n", pid, arg0); }' >out 2>err &
	dt=$!
	for _ in $(seq 100); do grep -q ready out 2>/dev/null && break; sleep 0.1; done
	grep -q ready out || { cat err; kill $dt; exit 1; }
	./prog 40 &
	p=$!
	wait $p
	kill -INT $dt
	wait $dt
	dtstatus=$?
	# The process's probe, and the one for every process when the exec
	# gate placed it (the link is then the site's for every process).
	names="lateretry$p:prog:main:tick\(, lateretry:prog:main:tick\)\?"
	whose="\(every process\|process $p\)"
	site="$names: the kernel refused the uprobe at offset 0x[0-9a-f]* of $PWD/prog for $whose: Cannot allocate memory"
}

run 2
[ $dtstatus = 0 ] || fail "dtrace exited with $dtstatus after a refused link"
[ "$(grep -c "^dtrace: $site; trying again\$" err)" = 2 ] ||
	fail "two refusals were not each reported by the probe's name"
grep -q "^dtrace: $names: the uprobe at offset 0x[0-9a-f]* of $PWD/prog for $whose is attached at try 3: what it fired before was not seen\$" err ||
	fail "the link made at the third try went without a word"
for i in 37 38 39; do
	grep -qx "tick $p $i" out || fail "firing $i after the retried link was missed"
done
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }

saved=$status
run 100
[ $dtstatus = 0 ] || fail "dtrace exited with $dtstatus after giving a site up"
[ "$(grep -c "^dtrace: $site; trying again\$" err)" = 4 ] ||
	fail "the first four refusals were not reported as tried again"
[ "$(grep -c "^dtrace: $site; not traced\$" err)" = 1 ] ||
	fail "the fifth refusal did not say the site is not traced"
grep -q "tick $p" out && fail "a site whose link was refused fired"
[ $status = $saved ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
