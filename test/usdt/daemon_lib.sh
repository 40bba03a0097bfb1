# SPDX-License-Identifier: MIT
# daemon_lib.sh: sourced by the tests that run their own dtprobed
# (test/sh/dtprobed/dtprobed_reg.sh, and through trace_lib.sh the usdt_trace_*
# tests): a daemon on the test's own socket, state directory and pinned map,
# named by the environment variables dtprobed, the registration code and
# dtrace's usdt plugin all read (DTPROBED_SOCKET, DTPROBED_STATEDIR,
# DTPROBED_MAP).  Its log is dtprobed.log in the test's directory.
#
# Uses test/sh/lib/test_lib.sh's status and fail (and sources it when
# the test has not).
# Provides: W (scratch dir, the current one), wait_for, bg
# (start a process killed at exit; bgpids), start_daemon [OPTION...], stop_daemon,
# map_entries PID.
declare -F fail >/dev/null || . "$TESTDIR/sh/lib/test_lib.sh"
W=$PWD
export DTPROBED_SOCKET=$W/sock DTPROBED_STATEDIR=$W/state
PINDIR=/sys/fs/bpf/dtprobed-test-$$
export DTPROBED_MAP=$PINDIR/usdt_procs
dpid=
bgpids=()

daemon_cleanup() {
	for p in "${bgpids[@]}"; do kill -9 "$p" 2>/dev/null; done
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$PINDIR"
}

# daemon_user: a throwaway user (user_lib.sh, which the test sources
# too) for a test of dtprobed, removed at exit with the test's daemon; $U
# is a directory of the user's.
daemon_user() {
	throwaway_user
	trap 'remove_throwaway_user; daemon_cleanup' EXIT
	U=$(user_dir u) || { echo "cannot make the user's directory"; exit 1; }
}

trap daemon_cleanup EXIT

# wait_for SECONDS COMMAND...: until COMMAND succeeds.
wait_for() {
	local n=$(($1 * 20)); shift
	while ! "$@"; do
		n=$((n - 1)); [ $n -le 0 ] && return 1
		sleep 0.05
	done
}

# bg COMMAND...: run in the background, killed at exit; pid in $!.
bg() { "$@" & bgpids+=("$!"); }

# Map entries of a pid (keys start with the pid, little-endian).
map_entries() {
	local hex
	hex=$(printf '%08x' "$1" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4 \3 \2 \1/')
	bpftool map dump pinned "$DTPROBED_MAP" 2>/dev/null |
		grep -c "^key: $hex 00 00 00 00"
}

# start_daemon [OPTION...]: dtprobed -F with the options.
start_daemon() {
	"$B/dtprobed" -F "$@" 2>>"$W/dtprobed.log" &
	dpid=$!
	# Its start-up walk of every process takes seconds in a sanitizer
	# build beside other sessions; the wait ends as soon as it listens.
	wait_for 15 test -S "$DTPROBED_SOCKET" || fail "dtprobed did not start"
}

stop_daemon() {
	kill "$dpid"; wait "$dpid" 2>/dev/null; dpid=
	rm -f "$DTPROBED_SOCKET"
}
