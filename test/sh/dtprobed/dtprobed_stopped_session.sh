#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 90
# A subscribed session that is stopped (kill -STOP, Ctrl-Z) does not delay
# the programs that register: dtprobed sees it stopped, says so once, and
# answers without waiting for its ack.  It once waited 100 ms (DTP_ACK_MS)
# for each, which every program built with `dtrace -G` spent in its start
# (8 ms became 108).  Of ten registrations with the session stopped, most
# are answered well within those 100 ms (all of them, on a machine not
# loaded), where none could be before; once the session runs again it
# acks, is waited for again, and traces a program started after.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
build_workers
start_daemon
"$DTRACE" -Z -q -n 'BEGIN { printf("ready\n"); }
	workers*:::tick { printf("tick %d %d\n", pid, arg0); }' >out 2>err &
dt=$!; bgpids+=("$dt")
wait_for 15 has_line out '^ready$' || { cat err; fail "dtrace did not start"; }
wait_for 10 grep -q "subscriber pid $dt\$" dtprobed.log || fail "no subscription"

kill -STOP "$dt"
python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" timed 10 >timed ||
	fail "the registrations were not answered"
echo "answers beside a stopped session (ms):" $(cat timed)
fast=$(awk '$1 < 90' timed | wc -l)
[ "$fast" -ge 6 ] || fail "$fast of 10 answered within 90 ms: the stopped session was waited for"
grep -q "subscriber pid $dt is stopped: not waited for until it acks again" \
	dtprobed.log || fail "the stopped session was not logged"

kill -CONT "$dt"
wait_for 10 grep -q "subscriber pid $dt acks again" dtprobed.log ||
	fail "the resumed session is not waited for again"
"$W/workers" 1
wait_for 10 has_line out "^tick [0-9]+ 0\$" || { cat err; fail "not traced after resuming"; }
kill -INT "$dt"; wait "$dt"
exit $status
