#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# @timeout: 90
# A registration goes to the process that sent it, never to another one
# that got its pid meanwhile.  With dtprobed stopped, a process sends a
# registration and exits; a second process, of the same layout (the same
# program without address randomization), is given its pid; dtprobed
# resumes and serves the message.  It once took the sender's pid from the
# socket when it served the message and registered the second process,
# which sent nothing; it now holds the sender from the accept (a pidfd,
# SO_PEERPIDFD) and drops the message of a sender that exited, silently.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/daemon_lib.sh"
[ -x /usr/bin/python3 ] || { echo "no /usr/bin/python3"; exit 77; }
command -v setarch >/dev/null || { echo "no setarch"; exit 77; }
[ -w /proc/sys/kernel/ns_last_pid ] || { echo "no ns_last_pid"; exit 77; }
start_daemon
SEND=$TESTDIR/usdt/dtp_send.py
# (setarch execs what it runs: the pid of `$NORAND cmd &` is cmd's)
NORAND="setarch $(uname -m) -R"

# The second process: the same python, which sleeps.
sleeper() { $NORAND /usr/bin/python3 -c 'import time; time.sleep(30)' & }
# Its registration must not exist; and the check that dtprobed would take
# the message at all: the same sender, running, is registered.
$NORAND /usr/bin/python3 "$SEND" "$DTPROBED_SOCKET" good & alive=$!
bgpids+=("$alive")
wait_for 10 test -f "state/$alive" ||
	{ cat dtprobed.log; fail "a running sender was not registered"; exit 1; }

kill -STOP "$dpid"
got=
for try in $(seq 30); do
	$NORAND /usr/bin/python3 "$SEND" "$DTPROBED_SOCKET" once & sender=$!
	wait "$sender"
	# the next fork gets the sender's pid, unless another process of the
	# machine forked in between: then try again
	echo $((sender - 1)) >/proc/sys/kernel/ns_last_pid
	sleeper; other=$!; bgpids+=("$other")
	[ "$other" = "$sender" ] && { got=1; break; }
	kill "$other"
done
[ -n "$got" ] || { kill -CONT "$dpid"; echo "no pid given again in 30 tries"; exit 77; }
# the second process runs python (setarch exec'd it) and sleeps
runs_python() { grep -q "^State:.*S (sleeping)" "/proc/$other/status" &&
	readlink "/proc/$other/exe" | grep -q python; }
wait_for 10 runs_python || fail "the second process did not start"
kill -CONT "$dpid"
# A registration sent after is answered once the one before was served.
python3 "$SEND" "$DTPROBED_SOCKET" timed 1 >/dev/null
[ -f "state/$other" ] &&
	fail "pid $other, given again, received the registration its first process sent"
[ $status = 0 ] || cat dtprobed.log
exit $status
