#!/bin/bash
# SPDX-License-Identifier: MIT
# One dtprobed a socket: a second one started on the same paths refuses
# to start (status 1, naming the first one's pid), and leaves the first
# serving: its socket stays, and a program started after registers.
# (The second once ran without complaint, and SIGTERM to either unlinked
# the socket both thought theirs: every later registration lost.)
. "$TESTDIR/sh/lib/test_lib.sh"
gen=$B/test/unit/test_usdt_gen
[ -x "$B/dtprobed" ] || { echo "no $B/dtprobed"; exit 77; }
[ -x "$gen" ] || { echo "no $gen"; exit 77; }
[ -d /sys/fs/bpf ] || { echo "no bpffs"; exit 77; }
. "$TESTDIR/usdt/daemon_lib.sh"

"$gen" gen "$W/bin" >gen.log 2>&1 || { cat gen.log; fail "building"; exit 1; }
start_daemon
"$B/dtprobed" -F 2>second.log & second=$!; bgpids+=("$second")
gone() { ! kill -0 "$second" 2>/dev/null; }
if wait_for 15 gone; then
	wait "$second"; rc=$?
	[ "$rc" = 1 ] || fail "the second dtprobed exited with $rc"
else
	fail "a second dtprobed on the same socket runs"
	kill "$second"; wait "$second" 2>/dev/null
fi
grep -q "another dtprobed (pid $dpid) serves $DTPROBED_SOCKET" second.log ||
	{ cat second.log; fail "the refusal does not name the first"; }
test -S "$DTPROBED_SOCKET" || fail "the first one's socket is gone"
"$W/bin/app" 10 100 & apid=$!; bgpids+=("$apid")
wait_for 3 test -f "state/$apid" || fail "the first one no longer serves"
wait "$apid"
exit $status
