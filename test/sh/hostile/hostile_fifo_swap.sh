#!/bin/bash
# SPDX-License-Identifier: MIT
# A user cannot hang root's dtrace by swapping a FIFO in where dtrace
# expects a file the user's process names.  The user runs a program from a
# directory of its own and exchanges its path with a FIFO's, over and over
# (test/progs/path_swap: renameat2 RENAME_EXCHANGE, so the name is always
# one of the two).  An open() of the name at the wrong moment used to wait
# for a writer forever; dt_untrusted.c now opens no FIFO.
#
#  1. `dtrace -l -n 'zzznomatch*:::'` reads every process's mapped files
#     (the usdt provider): each of several runs ends as it does alone.
#  2. A tracing session of a provider glob (the exec gate) while the user,
#     in a user and mount namespace of its own (unshare -Urm), runs the
#     program over and over: the gate reads each exec's path from the
#     process and opens it through /proc/PID/cwd, which the swap made a
#     FIFO half of the time, and used to block the gate thread (and with
#     it, dtrace's end: SIGINT no longer ended it); the program has USDT
#     notes, so the trace loop then opens the path again for the usdt
#     provider.  The session gets SIGINT after a few seconds and must end
#     soon after.
#
# Bounds: a run ends in well under a second here (the session 0.3 to
# 0.5 s after SIGINT); a hung run never ends.  Each gets 20 s (the session
# 20 s after SIGINT, and is killed 30 s after), far above what a loaded
# machine needs and far below forever.  Without the fix, part 2 hung in
# each of 5 runs (the gate meets the FIFO on half the execs, dozens a
# second); part 1 in a few percent of its runs (the window is between a
# stat() and an open()).
# @timeout: 120
# @alone
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
swap=$B/test/progs/path_swap
prog=$B/test/progs/sdt_args	# USDT notes: the providers read it too
[ -x "$swap" ] && [ -x "$prog" ] || { echo "no $swap or $prog"; exit 77; }
. "$TESTDIR/sh/lib/user_lib.sh"
status=0

throwaway_user
d=$(user_dir u) || { echo "cannot make the user's directory"; exit 1; }
cp "$prog" "$d/prog" && cp "$swap" "$d/swap" &&
	chown "$TUSER" "$d/prog" "$d/swap" && as_user mkfifo "$d/fifo" ||
	{ echo "cannot set the user's files up"; exit 1; }
cd "$d" || exit 1

# ends: true when the command ran under `timeout` ended by itself (status
# neither 124, timed out, nor 137, killed after the grace).
ended() { [ "$1" != 124 ] && [ "$1" != 137 ]; }

# --- 1: dtrace -l reads the mapped files of every process ----------------
as_user ./prog 0 1000 >/dev/null &
as_user ./swap "$d/prog" "$d/fifo" 60 &
swapper=$!
sleep 0.3
for i in 1 2 3 4 5 6 7 8 9 10; do
	timeout -k 5 20 "$DTRACE" -l -n 'zzznomatch*:::' >list.out 2>list.err
	rc=$?
	ended $rc || { fail "dtrace -l run $i hung (status $rc)"; break; }
	[ $rc = 0 ] || { fail "dtrace -l run $i failed ($rc)"; cat list.err; }
done
kill "$swapper" 2>/dev/null
wait "$swapper" 2>/dev/null

# --- 2: the exec gate, a program of another mount namespace -------------
if ! as_user unshare -Urm true 2>/dev/null; then
	echo "no user namespaces for the user: the exec gate case is skipped"
	exit $status
fi
as_user ./swap "$d/prog" "$d/fifo" 60 &
swapper=$!
as_user unshare -Urm sh -c 'while :; do ./prog 1 0 && echo >>runs; done' \
	>/dev/null 2>&1 &
start=$(date +%s)
timeout --preserve-status -s INT -k 30 4 \
	"$DTRACE" -Z -q -n 'zzznomatch*:::tick' >trace.out 2>trace.err
rc=$?
took=$(($(date +%s) - start))
ended $rc && [ $took -le 24 ] ||
	fail "the tracing session did not end on SIGINT (status $rc," \
	"$took s after its start, SIGINT at 4 s)"
[ $rc = 0 ] || { fail "the tracing session failed ($rc)"; cat trace.err; }
kill "$swapper" 2>/dev/null
wait "$swapper" 2>/dev/null
# the case was played: the user's program ran in its namespace
[ -s runs ] || fail "the user's program never ran in its namespace"
exit $status
