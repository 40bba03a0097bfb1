#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# The dtprobed handshake (dtprobed_proto.h): with `myapp*:::tick` traced, a
# fresh copy of a -G built program (a file no process had mapped, so no
# probe was placed at start) is started afterwards; its registration waits
# until dtrace placed its probes, so the very first firing, at the start of
# main, is seen.  Done a few times, since the exec watch alone wins the race
# only by chance.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

"$DTRACE" -Z -q -n 'BEGIN { printf("ready\n"); }
myapp*:::tick { printf("tick %s %d %d\n", probemod, pid, arg0); }' \
	>out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || { cat err; fail "dtrace did not start"; exit 1; }
wait_for 3 grep -q "subscriber pid $dt" dtprobed.log ||
	fail "dtrace did not subscribe to dtprobed"

declare -A pids
for i in 1 2 3; do
	cp app "app_hs$i"
	"$W/app_hs$i" 1 0 >/dev/null & pids[$i]=$!
	wait ${pids[$i]}
done
sleep 0.2
kill -INT $dt; wait $dt

for i in 1 2 3; do
	has_line out "^tick app_hs$i ${pids[$i]} 0\$" ||
		fail "fresh program $i: its first firing was missed"
done
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err;
	echo "--- dtprobed.log"; cat dtprobed.log; }
exit $status
