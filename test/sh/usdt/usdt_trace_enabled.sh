#!/bin/bash
# SPDX-License-Identifier: MIT
# Is-enabled probes on a lockdown kernel (no BPF writes to user memory):
# ISEN_TICK_ENABLED() reads the probe's semaphore, which the kernel's
# uprobe reference counter raises while dtrace traces the probe.  A program
# prints the macro's value every 20 ms; it must read 0, then 1 while a
# dtrace traces isen*:::tick, 0 after that dtrace exits normally, 1 under a
# second dtrace, and 0 again after that one is killed with SIGKILL.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
# A provider of its own: the myapp* sessions of tests running meanwhile
# must not raise this program's semaphore.
printf 'provider isen {\n\tprobe tick(int);\n};\n' >isen.d
PROV=isen.d
"$DTRACE" -h -s isen.d -o prov.h || { fail "dtrace -h"; exit 1; }
cat >poll.c <<'C'
#include <stdio.h>
#include <unistd.h>
#include "prov.h"
int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < 1000; i++) {
		printf("%d\n", ISEN_TICK_ENABLED() ? 1 : 0);
		ISEN_TICK(i);
		usleep(20 * 1000);
	}
	return 0;
}
C
build_app poll cc poll.c "-O2" "" || exit 1
start_daemon

bg "$W/poll" >states
wait_for 3 has_line states '^0$' || fail "not 0 before tracing"

# last_is V: the program's latest line is V.
last_is() { [ "$(tail -1 states)" = "$1" ]; }

"$DTRACE" -q -n 'isen*:::tick { @ = count(); }' >/dev/null 2>err1 & dt=$!
wait_for 10 last_is 1 || { cat err1; fail "not 1 while traced"; }
kill -INT $dt; wait $dt
wait_for 3 last_is 0 || fail "not 0 after dtrace exited"

"$DTRACE" -q -n 'isen*:::tick { @ = count(); }' >/dev/null 2>err2 & dt=$!
wait_for 10 last_is 1 || { cat err2; fail "not 1 under the second dtrace"; }
kill -9 $dt; wait $dt 2>/dev/null
wait_for 3 last_is 0 || fail "not 0 after dtrace was killed with SIGKILL"

runs=$(uniq states | tr '\n' ' ')
[ "$runs" = "0 1 0 1 0 " ] || fail "states went $runs"
exit $status
