#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# Every run of a program with USDT probes is named with its own pid
# (lrn1234), not only the first: the exec gate lets the later runs of a
# program it has seen go at once, and the exec watch still hears of each,
# so the probes of that process are made.  Before, the second and later
# runs fired under the probe without the pid (lrn) for their whole life.
# The program waits 100 ms before it fires, past the few milliseconds the
# exec watch takes.  Without dtprobed (a socket that is not there).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
printf 'provider lrn { probe tick(int); };\n' >lrn.d
cat >prog.c <<'EOF_C'
#include "lrn.h"
#include <unistd.h>
int main(void)
{
	usleep(100000);
	for (int i = 0; i < 3; i++)
		LRN_TICK(i);
	return 0;
}
EOF_C
build_usdt prog lrn.d prog.c
export DTPROBED_SOCKET=$PWD/none

"$DTRACE" -Z -q -n 'BEGIN { printf("ready\n"); }
	lrn*:::tick { printf("%s %d\n", probeprov, pid); }' >out 2>err &
dt=$!
trap 'kill $dt 2>/dev/null; wait $dt 2>/dev/null' EXIT
for i in $(seq 100); do grep -q ready out && break; sleep 0.1; done
pids=""
for run in 1 2 3; do
	./prog & pids="$pids $!"; wait $!
done
sleep 0.5
kill -INT $dt; wait $dt; trap - EXIT
for p in $pids; do
	n=$(grep -cx "lrn$p $p" out)
	[ "$n" = 3 ] || { echo "pid $p: $n firings named lrn$p"; status=1; }
done
if grep -q '^lrn [0-9]' out; then echo "firings under the probe without the pid"; status=1; fi
[ $status = 0 ] || { echo "stdout:"; cat out; echo "stderr:"; cat err; }
exit $status
