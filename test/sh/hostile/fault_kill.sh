#!/bin/bash
# SPDX-License-Identifier: MIT
# kill -9 of dtrace never harms what it traces.  A program is traced with
# -p and dtrace is killed with SIGKILL while it attaches (thousands of
# probes, killed at several moments) and while it traces (its breakpoint
# seen in the program's memory first); each time the breakpoint is gone
# from the program's code afterwards, no uprobe of the program is left in
# uprobe_events, the program runs on and computes what it computes
# untraced, and a later session traces it normally.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_prog pidtarget
N=2500			# iterations, 2 ms apart: about 5 s

expected=$("$T" 20 2>/dev/null)	# "done TOTAL" for 20 iterations...
# ...and for N: add 2i+1, sum8 36, pt_alias 2i
want="done $(( N * N + 36 * N + N * (N - 1) ))"
[ "$expected" = "done $(( 400 + 720 + 380 ))" ] || { echo "pidtarget: $expected"; exit 1; }

"$T" -s 2000 $N >prog.out 2>prog.err &
pid=$!
trap 'kill -9 $pid 2>/dev/null' EXIT
sleep 0.2

# The first byte of add() in the program's memory, as two hex digits.
off=$(nm "$T" | awk '$3 == "add" { print $1 }')
base=$(awk -v exe="$T" '$6 == exe && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/$pid/maps)
add_byte() {
	dd if=/proc/$pid/mem bs=1 count=1 skip=$(( 0x$base + 0x$off )) \
		iflag=skip_bytes 2>/dev/null | od -An -tx1 | tr -d ' '
}
orig=$(add_byte)
[ -n "$orig" ] && [ "$orig" != cc ] || { echo "cannot read add() in $pid: '$orig'"; exit 1; }
status=0

# while attaching: thousands of probes, killed at several moments
for delay in 0.05 0.2 0.5 1; do
	"$DTRACE" -q -p $pid -n 'pid$target:a.out::entry,pid$target:libc.so.6::entry { @[probefunc] = count(); }' \
		>/dev/null 2>&1 &
	dt=$!
	sleep $delay
	kill -9 $dt
	wait $dt 2>/dev/null
	kill -0 $pid 2>/dev/null || { fail "the program died (dtrace killed after ${delay}s)"; break; }
	[ "$(add_byte)" = "$orig" ] || fail "a breakpoint is left in add() (dtrace killed after ${delay}s)"
done

# while tracing: the breakpoint is there, then gone
"$DTRACE" -q -p $pid -o trace.out -n 'pid$target:a.out:add:entry { printf("%d\n", arg0); }' \
	2>trace.err &
dt=$!
for i in $(seq 100); do [ -s trace.out ] && break; sleep 0.1; done
[ -s trace.out ] || fail "the session did not trace: $(cat trace.err)"
[ "$(add_byte)" = cc ] || fail "no breakpoint in add() while tracing"
kill -9 $dt
wait $dt 2>/dev/null
[ "$(add_byte)" = "$orig" ] || fail "a breakpoint is left in add() after kill -9 while tracing"
if grep -q "$T" /sys/kernel/tracing/uprobe_events 2>/dev/null; then
	fail "uprobe_events still names the program:"; grep "$T" /sys/kernel/tracing/uprobe_events
fi

# a later session works
"$DTRACE" -q -p $pid -n 'pid$target:a.out:add:entry /++n == 3/ { printf("ok\n"); exit(0); }' \
	>later.out 2>later.err
[ "$(cat later.out)" = ok ] || fail "a later session failed: $(cat later.err)"

wait $pid
rc=$?
trap - EXIT
[ $rc = 0 ] || fail "the program exited with $rc"
[ "$(cat prog.out)" = "$want" ] || fail "the program computed '$(cat prog.out)', not '$want'"
exit $status
