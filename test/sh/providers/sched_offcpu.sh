#!/bin/bash
# SPDX-License-Identifier: MIT
# The sched provider: off-CPU analysis of napper (test/progs/napper.c),
# which sleeps 4 x 50 ms in usleep() under nap(): the time it spent off
# CPU shows under that stack, each probe fires in the thread it is about,
# and args[] are the threads the probes name.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog napper
. "$TESTDIR/sh/lib/check_lib.sh"

# The stacks of the aggregation, each joined into one line, then its sum.
stacks() {
	awk '$0 == "done" || NF == 0 { s = ""; next }
	     NF == 1 && $1 ~ /^[0-9]+$/ { print s " = " $1; s = ""; next }
	     { s = s (s == "" ? "" : " <- ") $1 }' out
}

"$DTRACE" -q -c "$T" -n '
sched:::off-cpu /pid == $target/ { self->ts = timestamp; }
sched:::on-cpu /self->ts/ { @[ustack()] = sum(timestamp - self->ts); self->ts = 0; }' \
	>out 2>err || fail_run "off-cpu analysis failed"
grep -qx done out || fail "napper's output missing"
nap=$(stacks | grep ' <- napper`nap+0x[0-9a-f]* <- napper`main+')
check "nap stack" "${nap% = *}" \
'libc\.so\.6`(clock_nanosleep|__nanosleep|nanosleep)[^ ]* <- .*libc\.so\.6`usleep\+0x[0-9a-f]+ <- napper`nap\+0x[0-9a-f]+ <- napper`main\+0x[0-9a-f]+ <- .*\|'
# 200 ms asleep: at least 199 ms off CPU (the switch comes a little after
# the timer is armed), and less than a second however loaded the machine.
ns=${nap##* = }
[ -n "$ns" ] && [ "$ns" -ge 199000000 ] && [ "$ns" -lt 1000000000 ] ||
	fail "nap's time off CPU: '$ns' ns, not 199 ms to 1 s"

# Each probe in its thread's context (pid), args[] the thread it names.
# Counted in global variables: an aggregation's first entry is made in
# the firing, which the kernel may refuse under sched_switch (README).
"$DTRACE" -q -c "$T" -n '
sched:::off-cpu /pid == $target/ { off++; }
sched:::on-cpu /pid == $target/ { on++; }
sched:::sleep /pid == $target && execname == "napper"/ { sleeps++; }
sched:::dequeue /args[0]->tgid == $target && pid == $target/ { dequeues++; }
sched:::wakeup /args[1]->pid == $target && stringof(args[0]->comm) == "napper"/ { wakeups++; }
sched:::enqueue /args[0]->tgid == $target/ { enqueues++; }
sched:::off-cpu /args[1]->pid == $target/ { to++; }
END {
	printf("off-cpu %d\non-cpu %d\nsleep %d\n", off, on, sleeps);
	printf("dequeue %d\nwakeup %d\n", dequeues, wakeups);
	printf("enqueue %d\noff-cpu to %d\n", enqueues, to);
}' >out 2>err || fail_run "sched probes failed"
# At least one firing per nap (4) of each; on-cpu, off-cpu and the
# switches to napper also count its start and exit.
check counts "$(grep -v '^done$' out | sed 's/ [4-9]$/ N/; s/ [1-9][0-9]$/ N/')" \
'off-cpu N\|on-cpu N\|sleep N\|dequeue N\|wakeup N\|enqueue N\|off-cpu to N\|'

# As in DTrace, args[0] and args[1] are lwpsinfo_t * and psinfo_t * to
# a program that reads psinfo.d (naming a member of them): napper is
# woken from each of its two naps (and maybe from another sleep).
"$DTRACE" -q -c "$T 2 1" -n '
sched:::wakeup /args[1]->pr_pid == $target && args[0]->pr_state == SSLEEP/ {
	printf("wakeup %d %s\n", args[0]->pr_lwpid == $target, args[1]->pr_fname);
}
sched:::off-cpu /args[1]->pr_pid == $target/ { on = 1; }
END { printf("off-cpu to %d\n", on); }' >out 2>err ||
	fail_run "sched probes' translated arguments"
check translated "$(grep -v '^done$' out | grep .)" \
'wakeup 1 napper\|(wakeup 1 napper\|)+off-cpu to 1\|'

"$DTRACE" -l -P sched >out 2>err
check list "$(awk 'NR > 1 { print $2, $3, $4 }' out)" \
'sched vmlinux on-cpu\|sched vmlinux off-cpu\|sched vmlinux sleep\|sched vmlinux dequeue\|sched vmlinux wakeup\|sched vmlinux enqueue\|'
exit $status
