#!/bin/bash
# SPDX-License-Identifier: MIT
# @timeout: 150
# A syscall session per call around `true` ends at once.  Its 360 links on
# the per-call tracepoints (syscall:::entry, forced per call) take the
# kernel 8 s or more to close, one at a time; dtrace prints its output,
# exits with its own status well within 5 s, and leaves the closing to the
# detacher, a process named dtrace-detach that holds nothing but the links
# (not the output: the command substitution returns) and ends once they
# are closed, leaving no process behind.  Without the detacher
# (DTRACE_FAULT_DETACH) dtrace closes them itself and says so on a
# terminal, and only there, once that took a second.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd script
[ -d /sys/kernel/tracing/events/syscalls ] ||
	[ -d /sys/kernel/debug/tracing/events/syscalls ] || exit 77

# Each run's processes carry this in their environment, the detacher too.
mark=DT_TEARDOWN_$$_$RANDOM
script='syscall:::entry /pid == $target && probefunc == "exit_group"/ {
	@ = count(); exit(3); }
END { printa("%@d\n", @); }'

# The processes whose environment holds the mark.
marked() {
	grep -lsz "^$mark=1\$" /proc/[0-9]*/environ | cut -d/ -f3
}

# Waits until no marked process is left (up to 120 s); false if one is.
wait_none_marked() {
	local _
	for _ in $(seq 600); do
		[ -z "$(marked)" ] && return 0
		sleep 0.2
	done
	return 1
}

start=$(date +%s%N)
out=$(env "$mark=1" "$DTRACE" -q -x syscall.mode=percall -n "$script" \
	-c true 2>err)
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$rc" = 3 ] && [ "$out" = 1 ] && [ ! -s err ] ||
	fail_run "per-call session around true" "1, exit status 3"
[ "$ms" -lt 5000 ] || fail "dtrace took $ms ms to end"

# The detacher: dtrace-detach, holding links only.
pids=$(marked)
[ "$(echo "$pids" | wc -w)" = 1 ] || fail "marked processes: $pids"
for p in $pids; do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = dtrace-detach ] ||
		fail "process $p is $(cat "/proc/$p/comm" 2>/dev/null)"
	others=$(for f in /proc/"$p"/fd/*; do readlink "$f"; done 2>/dev/null |
		grep -v '^anon_inode:bpf_link$' | sort -u)
	[ -z "$others" ] || fail "the detacher holds $others"
done
wait_none_marked || fail "left behind: $(marked)"

# No detacher: closed by dtrace, said on a terminal...
DTRACE_FAULT_DETACH=1 script -qec "env $mark=1 $DTRACE -q -x \
syscall.mode=percall -n '$script' -c true" /dev/null >tty.out 2>&1
tr -d '\r' <tty.out | grep -v '^$' | sed 's/ [0-9]* links/ N links/' >tty
printf '1\ndtrace: detaching N links...\n' | diff - tty ||
	fail "no detacher, on a terminal"
# ...and not elsewhere.
out=$(DTRACE_FAULT_DETACH=1 env "$mark=1" "$DTRACE" -q -x \
	syscall.mode=percall -n "$script" -c true 2>err)
rc=$?
[ "$rc" = 3 ] && [ "$out" = 1 ] && [ ! -s err ] ||
	fail_run "no detacher, no terminal" "1, exit status 3"
[ -z "$(marked)" ] || fail "left behind: $(marked)"
exit $status
