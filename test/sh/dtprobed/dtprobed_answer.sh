#!/bin/bash
# SPDX-License-Identifier: MIT
# With no dtrace session subscribed, dtprobed answers a registration once
# it has read the process's mappings, and records it afterwards: with each
# parse made 600 ms late (DTPROBED_FAULT_PARSE_DELAY), a registration's
# answer comes while its state file is still missing, and the answer to a
# sync sent next (DTPV_OP_SYNC, which dtrace's usdt plugin sends before it
# reads the state) once the file is there.  With a session subscribed
# (myapp*:::), the answer comes once the registration is recorded.  And
# the type that a registration declares for a probe, which only
# dtprobed's state holds, is listed by a dtrace -l started as soon as the
# registration is answered, before it is recorded: the usdt plugin's sync
# waits for the record.
. "$TESTDIR/sh/lib/test_lib.sh"
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

# A registration of its own declaration of a probe in a file that
# carries none (dtp_send.py map): the type it gives args[0] is in
# dtprobed's state alone.
gcc -O2 -o sdt_args "$TESTDIR/progs/sdt_args.c" || fail "building sdt_args"
bg python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" map "$W/sdt_args" \
	sdt_test string 'struct synced *' >sent
sender=$!
wait_for 5 grep -q registered sent || fail "the sender did not register"
[ -e "$DTPROBED_STATEDIR/$sender" ] &&
	echo "note: the registration was recorded before dtrace -l started"
"$DTRACE" -l -v -n "sdt_test$sender:::string" >list 2>list.err ||
	fail "dtrace -l straight after the registration: $(cat list.err)"
grep -q 'args\[0\]: struct synced \*$' list ||
	fail "dtrace -l straight after the registration: $(cat list list.err)"

[ $status = 0 ] || { echo "--- dtprobed log"; tail -20 dtprobed.log; }
exit $status
