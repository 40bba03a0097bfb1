#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 60
# The children a `dtrace -G` program forks while no dtrace session may
# want them cost dtprobed nothing: the fork handler registers a child
# only while the daemon's SOCKET.tracing file says a session is
# subscribed (or read the state a moment ago).  A program forking
# children that exit at once once cost the daemon a registration, a
# state file and its removal each (bench/usdt_fork.sh).  With a session
# tracing, each child still registers and fires named after its pid.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
build_workers
start_daemon

children() { cat "/proc/$1/task/$1/children" 2>/dev/null; }
# every child of $1 ($2 of them) past its fork handler, asleep in its loop
children_asleep() {
	local c n=0
	for c in $(children "$1"); do
		read -r nr _ <"/proc/$c/syscall" 2>/dev/null || return 1
		[ "$nr" = 230 ] || return 1	# clock_nanosleep (x86-64)
		n=$((n + 1))
	done
	[ "$n" = "$2" ]
}
[ "$(uname -m)" = x86_64 ] || { echo "the pacing reads x86-64 syscall numbers"; exit 77; }

bg "$W/workers" 3 "$W/go1"; parent=$!
wait_for 10 test -f "state/$parent" || fail_run "the parent did not register"
wait_for 10 children_asleep "$parent" 3 || fail_run "the children did not start"
[ -e "$DTPROBED_SOCKET.tracing" ] && fail "$DTPROBED_SOCKET.tracing with no session"
# dtrace -l syncs with the daemon: what came before is recorded
"$DTRACE" -l -n 'workers*:::tick' >/dev/null 2>&1
got=$(ls state)
[ "$got" = "$parent" ] || fail "registered with no session: $(echo $got)"
touch go1

"$DTRACE" -Z -q -n 'BEGIN { printf("ready\n"); }
	workers*:::tick { printf("%s %d %d\n", probeprov, pid, ppid); }' \
	>out 2>err &
dt=$!; bgpids+=("$dt")
wait_for 15 has_line out '^ready$' || fail_run "dtrace did not start"
[ -e "$DTPROBED_SOCKET.tracing" ] || fail "no $DTPROBED_SOCKET.tracing while a session traces"
bg "$W/workers" 3 "$W/go2"; parent=$!
named() { [ "$(awk -v p="$parent" '$3 == p && $1 == "workers" $2' out | wc -l)" = 3 ]; }
wait_for 15 named || fail "firings of the children: $(awk -v p="$parent" '$3 == p' out | tr '\n' ' ')"
for c in $(children "$parent"); do
	[ -f "state/$c" ] || fail "child $c not registered while traced"
done
touch go2
kill -INT "$dt"; wait "$dt"
exit $status
