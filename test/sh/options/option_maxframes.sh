#!/bin/bash
# SPDX-License-Identifier: MIT
# -x maxframes bounds every stack: a ustack() or stack() that asks for
# more frames keeps maxframes of them, as DTrace cuts them, in a trace and
# in an aggregation key alike; its default is the kernel's
# perf_event_max_stack, so the usual stacks are whole.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog recurse

frames() {
	grep -c 'recurse`down'
}

out=$("$DTRACE" -q -x maxframes=4 -c "$T 20" -n '
pid$target:a.out:down:entry /arg0 == 0/ { ustack(50); exit(0); }' 2>err)
n=$(echo "$out" | frames)
[ "$n" = 4 ] || fail_run "ustack(50) with maxframes=4: $n frames" "4 frames"

out=$("$DTRACE" -q -x maxframes=3 -c "$T 20" -n '
pid$target:a.out:down:entry /arg0 == 0/ { @[ustack(30)] = count(); exit(0); }' 2>err)
n=$(echo "$out" | frames)
[ "$n" = 3 ] || fail_run "@[ustack(30)] with maxframes=3: $n frames" "3 frames"

out=$("$DTRACE" -q -c "$T 20" -n '
pid$target:a.out:down:entry /arg0 == 0/ { ustack(10); exit(0); }' 2>err)
n=$(echo "$out" | frames)
[ "$n" = 10 ] || fail_run "ustack(10) by default: $n frames" "10 frames"

"$DTRACE" -x maxframes=0 -n 'BEGIN { exit(0); }' >out 2>err
grep -q 'failed to set option -x maxframes=0' err ||
	fail_run "maxframes=0 accepted" "refused"
exit 0
