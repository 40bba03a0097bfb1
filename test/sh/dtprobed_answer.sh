#!/bin/bash
# SPDX-License-Identifier: MIT
# With no dtrace session subscribed, dtprobed answers a registration once
# it has read the process's mappings, and records it afterwards: with each
# parse made 600 ms late (DTPROBED_FAULT_PARSE_DELAY), a registration's
# answer comes while its state file is still missing, and the answer to a
# sync sent next (DTPV_OP_SYNC, which dtrace's usdt plugin sends before it
# reads the state) once the file is there.  With a session subscribed
# (myapp*:::), the answer comes once the registration is recorded.
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
DTPROBED_FAULT_PARSE_DELAY=600 start_daemon

# answer: a registration of "pyprov" and a sync (dtp_send.py): what the
# state directory held at each answer.
answer() { python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" answer state; }

got=$(answer)
[ "$got" = "early synced" ] || fail "no session: $got, not early synced"

# A session subscribed: the answer comes once the registration is recorded
# (a program runs meanwhile, for myapp*::: to match).
bg "$W/app" 1 0 wait "$W/go2" >/dev/null
trace_myapp || exit 1
wait_for 5 grep -q "subscriber pid $dt\$" dtprobed.log || fail "no subscription"
got=$(answer)
[ "$got" = "recorded synced" ] ||
	fail "a session subscribed: $got, not recorded synced"
kill -INT "$dt"; wait "$dt"
touch "$W/go2"

[ $status = 0 ] || { echo "--- dtprobed log"; tail -20 dtprobed.log; }
exit $status
