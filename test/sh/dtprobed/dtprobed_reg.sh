#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 120
# dtprobed with real registrations, on its own socket, state directory and
# pinned map: programs built with -h/-G (C, C++, -flto, a dlopen'ed library)
# register at start and are forgotten at exit; dlclose takes a library's
# registration back; a forked child registers under its own pid while a
# session may want it (a sync came), also when its parent started before
# the daemon; a restart
# of dtprobed rebuilds the same state and map; malformed, truncated,
# oversized and lying messages sent straight to the socket are refused and
# logged with the sender's pid while the daemon goes on serving; a flood is
# cut off; a parser killed while it waits for a message is replaced.
. "$TESTDIR/sh/lib/test_lib.sh"
gen=$B/test/unit/test_usdt_gen
[ -x "$B/dtprobed" ] || { echo "no $B/dtprobed"; exit 77; }
[ -x "$gen" ] || { echo "no $gen"; exit 77; }
[ -d /sys/fs/bpf ] || { echo "no bpffs"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

. "$TESTDIR/usdt/daemon_lib.sh"

nregs() { grep -c '^reg' "state/$1" 2>/dev/null || echo 0; }
has_nregs() { [ "$(nregs "$1")" = "$2" ]; }

"$gen" gen "$W/bin" >gen.log 2>&1 || { cat gen.log; fail "building"; exit 1; }
start_daemon

# --- registration, state file, map, exit ---
"$W/bin/app" 40 100 & apid=$!; bgpids+=("$apid")
wait_for 3 test -f "state/$apid" || fail "app $apid did not register"
grep -q "^proc	$apid	" "state/$apid" || fail "no proc line"
grep -Eq "^reg	[0-9]+	myapp	[0-9]+	[0-9]+	0x[0-9a-f]+	$W/bin/app\$" \
	"state/$apid" || { cat "state/$apid"; fail "reg line"; }
[ "$(grep -c '^site' "state/$apid")" = 3 ] || fail "3 sites expected"
grep -q '^xlate	0	char \*	1$' "state/$apid" || fail "argument mapping"
grep -q '^attr	0	Evolving/Evolving/Common$' "state/$apid" || fail "attrs"
[ "$(map_entries "$apid")" = 3 ] || fail "3 map entries expected for $apid"

# --- restart: same state, same map ---
cp "state/$apid" before
stop_daemon
start_daemon
sleep 0.3
cmp -s before "state/$apid" || fail "state changed across a restart"
[ "$(map_entries "$apid")" = 3 ] || fail "map not rebuilt after restart"

kill "$apid"; wait "$apid" 2>/dev/null
wait_for 4 test ! -f "state/$apid" || fail "exited $apid not forgotten"
[ "$(map_entries "$apid")" = 0 ] || fail "map entries of exited $apid left"

# --- normal exit unregisters (destructor) ---
"$W/bin/app_cxx" 3 100 & cpid=$!; bgpids+=("$cpid")
wait_for 3 test -f "state/$cpid" || fail "C++ app did not register"
wait "$cpid"
wait_for 3 test ! -f "state/$cpid" || fail "C++ app not forgotten"

# --- LTO build registers its sites ---
"$W/bin/app_lto" 20 100 & lpid=$!; bgpids+=("$lpid")
wait_for 3 test -f "state/$lpid" || fail "LTO app did not register"
[ "$(grep -c '^site' "state/$lpid" 2>/dev/null)" -ge 3 ] || fail "LTO sites"
kill "$lpid"

# --- dlopen / dlclose ---
"$W/bin/app" 20 100 dlopen "$W/bin/lib.so" & dlpid=$!; bgpids+=("$dlpid")
wait_for 3 has_nregs "$dlpid" 2 || fail "library did not register"
grep -q "	$W/bin/lib.so\$" "state/$dlpid" || fail "library module path"
wait_for 10 has_nregs "$dlpid" 1 || fail "dlclose did not unregister"
wait "$dlpid"

# --- fork: the child registers under its own pid, while a session may
#     want it: one read the state (dtprobed_fork_unwatched.sh) ---
python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" sync
"$W/bin/app" 20 100 fork & fpid=$!; bgpids+=("$fpid")
wait_for 3 test -f "state/$fpid" || fail "forking app did not register"
child=$(pgrep -P "$fpid" | head -1)
[ -n "$child" ] || fail "no child of $fpid"
[ -n "$child" ] && { wait_for 3 test -f "state/$child" ||
	fail "forked child $child not registered"; }
[ -n "$child" ] && [ "$(map_entries "$child")" = 3 ] ||
	fail "child map entries"
wait "$fpid"

# --- fork after the daemon came: the child registers, its parent never
#     did (no daemon at its start; found by the daemon's discovery) ---
stop_daemon
"$W/bin/app" 20 300 fork "$W/go" & lpid=$!; bgpids+=("$lpid")
sleep 1				# the registration code gives up after 0.5 s
start_daemon
wait_for 3 test -f "state/$lpid" || fail "started before the daemon: not found"
python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" sync
touch "$W/go"
wait_for 3 pgrep -P "$lpid" >/dev/null || fail "no child of $lpid"
child=$(pgrep -P "$lpid" | head -1)
[ -n "$child" ] && { wait_for 3 test -f "state/$child" ||
	fail "child forked after the daemon came not registered"; }
kill "$lpid"

# --- hostile messages ---
python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" bad >sent &
spid=$!; wait "$spid"
ncases=$(cat sent)
refused_all() { [ "$(grep -c "refused registration from pid $spid: " dtprobed.log)" = "$ncases" ]; }
wait_for 10 refused_all
nref=$(grep -c "refused registration from pid $spid: " dtprobed.log)
[ "$nref" = "$ncases" ] || { grep "pid $spid" dtprobed.log; fail "$nref of $ncases refused"; }
for why in "bad magic" "size field does not match" "table outside" \
	   "string table not terminated" "bad provider name" "exceeds" \
	   "is not in the code" "not in a mapped file" \
	   "argument mapping out of range" "too many arguments" \
	   "site of no probe"; do
	grep "pid $spid: " dtprobed.log | grep -q "$why" || fail "no refusal for: $why"
done
[ -f "state/$spid" ] && fail "a hostile message was recorded"
kill -0 "$dpid" || fail "dtprobed died"

# --- a well-formed hand-made message is accepted ---
python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" good & gpid=$!
bgpids+=("$gpid")
wait_for 3 test -f "state/$gpid" || fail "good message not accepted"
grep -q "	pyprov	" "state/$gpid" 2>/dev/null || fail "pyprov"
wait "$gpid"

# --- flood ---
python3 "$TESTDIR/usdt/dtp_send.py" "$DTPROBED_SOCKET" flood & fl=$!
wait "$fl"
wait_for 10 grep -q "refused registration from pid $fl: too many messages" dtprobed.log ||
	fail "flood not limited"

# --- still serving ---
"$W/bin/app" 10 100 & apid=$!; bgpids+=("$apid")
wait_for 3 test -f "state/$apid" || fail "not serving after the attacks"
wait "$apid"

# --- the parser waiting for the next message dies: a new one takes it ---
wait_for 3 pgrep -P "$dpid" >/dev/null || fail "no parser waiting"
pkill -KILL -P "$dpid"
"$W/bin/app" 10 100 & apid=$!; bgpids+=("$apid")
wait_for 3 test -f "state/$apid" || fail "not serving after its parser died"
wait "$apid"

[ $status = 0 ] || { echo "--- dtprobed log"; tail -40 dtprobed.log; }
exit $status
