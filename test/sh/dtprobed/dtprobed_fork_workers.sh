#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 120
# A root program built with `dtrace -G` that forks 200 workers at once
# while a session traces has every worker registered: each registers from
# the fork handler, all of them within a few milliseconds.  A share of 32 connections per user,
# root's included, once refused a third of them ("too many connections of
# uid 0": 118 and 137 of 201 registered); the privileged now have no share
# of their own, and a message that came while dtprobed served a long round
# is served, not refused for its time.  The workers send their parent's
# message byte for byte: dtprobed parses it once (200 took 31 s on a
# loaded machine with a parser started for each; 1 s now).
# With a session tracing, each worker's first firing, right after its
# fork, is named after its pid (workers<pid>; myapp<pid> in the program
# of the finding, where 179 of 200 were named myapp): dtprobed answered
# one registration after another, each once the session acked it, and a
# worker waits 200 ms at most; the answers now
# wait for the acks while dtprobed serves the next ones, oldest first.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
build_workers
start_daemon

# A child registers while a session may want it (dtprobed_fork_unwatched.sh):
# a session that prints nothing, subscribed.
"$DTRACE" -Z -q -n 'BEGIN { printf("ready\n"); } workers*:::tick { }' \
	>quiet.out 2>quiet.err &
quiet=$!; bgpids+=("$quiet")
wait_for 15 has_line quiet.out '^ready$' || { cat quiet.err; fail "dtrace did not start"; }

bg "$W/workers" 200 "$W/go"; parent=$!
registered() { [ "$(ls state | wc -l)" -ge 201 ]; }
t0=$(date +%s%N)
wait_for 60 registered
echo "$(ls state | wc -l) registered in $((($(date +%s%N) - t0) / 1000000)) ms"
n=$(ls state | wc -l)
[ "$n" = 201 ] || fail "$n of 201 registered"
[ -f "state/$parent" ] || fail "the parent is not registered"
grep "too many connections" dtprobed.log | head -3
grep -q "too many connections" dtprobed.log && fail "registrations refused"
touch "$W/go"
wait "$parent"
kill -INT "$quiet"; wait "$quiet"

# --- a session tracing: every firing named after its pid ---
# (firings of other programs with workers probes on the machine, whose
# registrations went to another daemon, are told apart by their parent)
"$DTRACE" -Z -q -n 'BEGIN { printf("ready\n"); }
	workers*:::tick { printf("%s %d %d\n", probeprov, pid, ppid); }' \
	>out 2>err &
dt=$!; bgpids+=("$dt")
wait_for 15 has_line out '^ready$' || { cat err; fail "dtrace did not start"; }
"$W/workers" 200 & parent=$!
wait "$parent"
mine() { awk -v p="$parent" '/^workers/ && $3 == p' out; }
fired() { [ "$(mine | wc -l)" -ge 200 ]; }
wait_for 30 fired || fail "$(mine | wc -l) of 200 firings seen"
kill -INT "$dt"; wait "$dt"
unnamed=$(mine | awk '$1 != "workers" $2' | wc -l)
echo "$unnamed of 200 firings not named workers<pid>"
# None here unloaded; a worker whose answer comes after the 200 ms it
# waits (a machine loaded by other work, 15 runnable on 2 CPUs, starves
# dtprobed) fires before the session knows it: 20 to 50 in 200 then (94
# before, loaded so).  A sanitized session takes tens of ms a worker:
# most fire first.
maxunnamed=50; [ "${DT_SANITIZED:-0}" = 1 ] && maxunnamed=200
[ "$unnamed" -le "$maxunnamed" ] ||
	fail "$unnamed of 200 firings not named workers<pid>: $(mine | awk '$1 != "workers" $2' | head -3 | tr '\n' ' ')"
[ $status = 0 ] || grep -v "^dtprobed: listening" dtprobed.log | head -5
exit $status
