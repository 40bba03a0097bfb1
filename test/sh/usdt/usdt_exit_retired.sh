#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A process's own probes (ret1234:::tick) go with it: once it has exited
# and its records were read, the session removes its probes and overlays
# (-x debug says so), so that a session tracing every process of a busy
# machine keeps those alive, not every one it saw (before, about 1.5 kB
# each for the session's life).  What the user sees is unchanged: each
# run fires under its own name, an aggregation keyed by probeprov still
# names the processes gone at its printing, and a run after the removals
# (which takes a slot they freed) is traced as the first ones were.
# Without dtprobed (a socket that is not there).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
printf 'provider ret { probe tick(int); };\n' >ret.d
cat >prog.c <<'EOF_C'
#include "ret.h"
#include <unistd.h>
int main(void)
{
	usleep(100000);
	for (int i = 0; i < 3; i++)
		RET_TICK(i);
	return 0;
}
EOF_C
build_usdt prog ret.d prog.c
export DTPROBED_SOCKET=$PWD/none

"$DTRACE" -x debug -Z -q -n 'BEGIN { printf("ready\n"); }
	ret*:::tick { printf("%s %d\n", probeprov, arg0); @[probeprov] = count(); }
	END { printa("%s %@d\n", @); }' >out 2>err &
dt=$!
trap 'kill $dt 2>/dev/null; wait $dt 2>/dev/null' EXIT
wait_line out '^ready$' 200 || { fail "dtrace did not start"; cat err; exit 1; }
pids=""
for run in 1 2 3; do
	./prog & p=$!; wait $p
	pids="$pids $p"
done
for p in $pids; do
	wait_line err "process $p exited: its overlays (1) and probes (1) removed" 300 ||
		fail "process $p: no removal said"
done
./prog & last=$!; wait $last
wait_line out "^ret$last 2\$" 200 || fail "the run after the removals was not traced"
kill -INT $dt; wait $dt; trap - EXIT
for p in $pids $last; do
	got=$(grep "^ret$p " out | tr '\n' ' ')
	want="ret$p 0 ret$p 1 ret$p 2 ret$p 3 "
	[ "$got" = "$want" ] || fail "pid $p: '$got', want '$want'"
done
if grep -q '^ret [0-9]' out; then fail "firings under the probe without the pid"; fi
[ $status = 0 ] || { echo "stdout:"; cat out; echo "stderr:"; cat err; }
exit $status
