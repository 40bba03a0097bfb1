#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# The programs' map of probe names has room for a number of probes made
# while tracing (8,192; 5 here, DTRACE_LATE_PROBES: the provider's probe for
# every process and 4 of one process each); before, every probe
# past it read its names as "" (probeprov...) for the rest of the
# session, which a session tracing every process of a busy machine
# reached within hours.  The ids of the probes of processes gone are
# given again: 4 runs fill the room, and once their probes are removed,
# 4 more runs are named as the first were, under the ids they freed.
# Without dtprobed (a socket that is not there).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc
printf 'provider rid { probe tick(int); };\n' >rid.d
cat >prog.c <<'EOF_C'
#include "rid.h"
#include <unistd.h>
int main(void)
{
	usleep(100000);
	for (int i = 0; i < 2; i++)
		RID_TICK(i);
	return 0;
}
EOF_C
build_usdt prog rid.d prog.c
export DTPROBED_SOCKET=$PWD/none DTRACE_LATE_PROBES=5

"$DTRACE" -x debug -Z -q -n 'BEGIN { printf("ready\n"); }
	rid*:::tick { printf("%d %s %d %d\n", pid, probeprov, id, arg0); }' >out 2>err &
dt=$!
trap 'kill $dt 2>/dev/null; wait $dt 2>/dev/null' EXIT
wait_line out '^ready$' 200 || { fail "dtrace did not start"; cat err; exit 1; }
# runs N: N runs one after the other, their pids in $ran; then wait until
# each one's probes are removed
runs() {
	ran=""
	for _ in $(seq "$1"); do
		./prog & p=$!; wait $p
		ran="$ran $p"
	done
	for p in $ran; do
		wait_line err "process $p exited: its overlays (1) and probes (1) removed" 300 ||
			fail "process $p: no removal said"
	done
}
runs 4; first=$ran
runs 4; second=$ran
kill -INT $dt; wait $dt; trap - EXIT
ids_of() { for p in $1; do awk -v p="$p" '$1 == p { print $3 }' out; done | sort -un; }
for p in $first $second; do
	got=$(awk -v p="$p" '$1 == p { printf "%s %s|", $2, $4 }' out)
	[ "$got" = "rid$p 0|rid$p 1|" ] || fail "pid $p: '$got', want 'rid$p 0|rid$p 1|'"
done
[ "$(ids_of "$first")" = "$(ids_of "$second")" ] ||
	fail "the second runs' ids $(ids_of "$second" | tr '\n' ' ')are not those the first freed, $(ids_of "$first" | tr '\n' ' ')"
[ $status = 0 ] || { echo "stdout:"; cat out; echo "stderr:"; grep -v 'site at offset' err; }
exit $status
