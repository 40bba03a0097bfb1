#!/bin/bash
# SPDX-License-Identifier: MIT
# The registration code of `dtrace -G` sends a registration again when the
# daemon closed the connection without an answer (as dtprobed does to a
# connection beyond a user's share or a pid's rate): against a stand-in
# daemon that closes the first connection unanswered and answers the
# second, a program sends its registration twice, the same message both
# times, and goes on.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1

python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" refuse-once >got &
fake=$!; bgpids+=("$fake")
wait_for 10 test -S "$DTPROBED_SOCKET" || fail "the stand-in daemon"
"$W/app" 1 >/dev/null || fail "app failed"
wait "$fake" || fail "the stand-in daemon did not get two messages"
[ "$(wc -l <got)" = 2 ] && [ "$(sort -u got | wc -l)" = 1 ] &&
	grep -q '^op 1 size [1-9]' got || { fail "messages"; cat got; }
exit $status
