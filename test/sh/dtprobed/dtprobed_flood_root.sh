#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 120
# Another user's connect flood does not lose root's registrations.  Sixteen
# processes of a throwaway user connect and send garbage as fast as they
# can (the flood of dtp_send.py) while root starts twenty programs built
# with `dtrace -G`: each is registered, and whatever dtprobed refused is
# in its log (the flood's refusals, counted past the user's lines).  A
# share of 32 connections per user, root's included, and a backlog of 128
# once lost 1 in 10 of root's registrations, with no line said.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
. "$TESTDIR/sh/lib/user_lib.sh"
[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3"; exit 77; }
daemon_user
cp "$TESTDIR/usdt/dtp_send.py" "$U/dtp_send.py"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

# the flood, again and again until the end of root's programs
as_user /bin/sh -c 'while [ ! -e stop ]; do
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
		/usr/bin/python3 u/dtp_send.py "$DTPROBED_SOCKET" flood &
	done
	wait
done' &
flood=$!; bgpids+=("$flood")
sleep 1
# root's programs live until the end: a state file goes at its program's
# exit, and a program that ended before it was looked at (6 s once, on a
# loaded machine) looked lost
apps=()
for i in $(seq 20); do
	"$W/app" 1000000 100 >/dev/null & apps+=("$!"); bgpids+=("$!")
	sleep 0.1
done
all_registered() {
	local a
	for a in "${apps[@]}"; do [ -f "state/$a" ] || return 1; done
}
wait_for 30 all_registered
lost=0
for a in "${apps[@]}"; do
	[ -f "state/$a" ] && continue
	lost=$((lost + 1))
	kill -0 "$a" 2>/dev/null || fail "root's program $a ended early"
	grep -q "pid $a:" dtprobed.log || fail "root's pid $a lost without a word"
done
[ "$lost" = 0 ] || tail -n 5 dtprobed.log
touch stop	# (the user's processes end with it, at exit)
[ "$lost" = 0 ] || fail "$lost of root's 20 registrations lost"
grep -c "refused registration" dtprobed.log | sed 's/^/refusals logged: /'
exit $status
