#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 120
# A root program built with `dtrace -G` that forks 200 workers at once has
# every worker registered: each registers from the fork handler, all of
# them within a few milliseconds.  A share of 32 connections per user,
# root's included, once refused a third of them ("too many connections of
# uid 0": 118 and 137 of 201 registered); the privileged now have no share
# of their own, and a message that came while dtprobed served a long round
# is served, not refused for its time.  The workers send their parent's
# message byte for byte: dtprobed parses it once (200 took 31 s on a
# loaded machine with a parser started for each; 1 s now).
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app workers cc "$TESTDIR/usdt/workers.c" "-O2" "" || exit 1
start_daemon

bg "$W/workers" 200 "$W/go"; parent=$!
registered() { [ "$(ls state | wc -l)" -ge 201 ]; }
t0=$(date +%s%N)
wait_for 60 registered
echo "$(ls state | wc -l) registered in $((($(date +%s%N) - t0) / 1000000)) ms"
n=$(ls state | wc -l)
[ "$n" = 201 ] || fail "$n of 201 registered"
[ -f "state/$parent" ] || fail "the parent is not registered"
grep "refused" dtprobed.log | head -3
grep -q "refused" dtprobed.log && fail "registrations refused"
touch "$W/go"
wait "$parent"
exit $status
