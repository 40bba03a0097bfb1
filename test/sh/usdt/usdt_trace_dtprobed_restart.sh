#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# dtprobed killed with SIGKILL and started again while `myapp*:::` traces
# registered programs: a program running across the restart is traced
# without a missed firing, a program started after the restart registers
# and is traced from its first firing, dtprobed's state file and pinned map
# entries of the running program are rebuilt while those of a program that
# exited while no dtprobed ran are dropped, and the traced programs print
# what they print untraced and exit with status 0.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1

has_entries() { [ "$(map_entries "$1")" = "$2" ]; }
nlistening() { [ "$(grep -c 'listening on' dtprobed.log)" = "$1" ]; }

start_daemon
"$W/app" 400 20 >running.out & running=$!; bgpids+=("$running")	# 8 s
wait_for 3 test -f "state/$running" || fail "app did not register"
cp "state/$running" state.before
"$W/app" 8 50 >gone.out & gone=$!
wait_for 3 test -f "state/$gone" || fail "short app did not register"

trace_myapp || exit 1
wait_for 3 has_line out "^tick $running " || fail "running app not traced"

kill -9 "$dpid"; wait "$dpid" 2>/dev/null; dpid=
wait "$gone" || fail "short app exited with $? while no dtprobed ran"
[ "$(grep -vc '^enabled$' gone.out)" = 0 ] || fail "gone.out: $(cat gone.out)"
sleep 0.3			# firings while no dtprobed runs
kill -0 "$running" || fail "running app ended before the restart"
"$B/dtprobed" -F 2>>dtprobed.log & dpid=$!
wait_for 5 nlistening 2 || fail "dtprobed did not restart"
has_entries "$running" 3 || fail "map not rebuilt for $running"
cmp -s state.before "state/$running" || fail "state of $running not rebuilt"
[ -f "state/$gone" ] && fail "state of exited $gone kept"
has_entries "$gone" 0 || fail "map entries of exited $gone kept"

"$W/app" 10 50 >after.out & after=$!
wait "$after" || fail "app started after the restart exited with $?"
wait "$running"; rc=$?
[ $rc = 0 ] || fail "running app exited with $rc"
sleep 0.2
kill -INT $dt; wait $dt || fail "dtrace exited with $?"

# Every firing of the running program from its first traced one to its last.
first=$(sed -n "s/^tick $running \([0-9]*\)\$/\1/p" out | head -1)
lost=$(missed out "$running" "${first:-400}" 400)
[ -z "$lost" ] || fail "running app: missed$lost"
for i in $(seq 0 9); do
	has_line out "^tick $after $i\$" || fail "app after restart: tick $i missed"
done
# app.c prints "enabled" at each firing while query-start is enabled.
[ "$(grep -c '^enabled$' after.out)" = 10 ] || fail "after.out: $(wc -l <after.out) lines"
[ "$(grep -vc '^enabled$' running.out)" = 0 ] || fail "running.out has other lines"
[ "$(grep -c '^enabled$' running.out)" -ge $((400 - ${first:-400})) ] ||
	fail "running app: is-enabled lost across the restart"
[ -s err ] && { fail "dtrace wrote errors"; }
[ $status = 0 ] || { echo "--- err"; cat err; echo "--- dtprobed.log"
	tail -20 dtprobed.log; echo "--- out"; head -20 out; }
exit $status
