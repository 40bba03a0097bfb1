#!/bin/bash
# SPDX-License-Identifier: MIT
# dtprobed serves its connections concurrently: while another user holds
# 130 connections open without a word (which once held every registration
# up for about 26 s, each given 200 ms in turn), a program linked with
# `dtrace -G` that runs for three seconds registers and is recorded.  The
# silent connections beyond a user's share are closed at once and logged.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
[ -x /usr/bin/python3 ] && command -v setpriv >/dev/null ||
	{ echo "no /usr/bin/python3 or setpriv"; exit 77; }
# The socket and the sender where the other user reaches them.
P=$(mktemp -d /tmp/dtprobed-busy.XXXXXX) && chmod 755 "$P" || exit 1
trap 'daemon_cleanup; rm -rf "$P"' EXIT
export DTPROBED_SOCKET=$P/sock
cp "$TESTDIR/usdt/dtp_send.py" "$P/dtp_send.py"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

bg setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 \
	"$P/dtp_send.py" "$DTPROBED_SOCKET" idle 130 60 >idle
wait_for 10 grep -q '^idle' idle || fail "the idle connections"
"$W/app" 30 100 >/dev/null & app=$!
wait_for 3 test -f "state/$app" || fail "the registration was not recorded"
wait "$app"
grep -q "too many connections of uid 65534" dtprobed.log ||
	fail "the connections beyond the share were not refused"
exit $status
