#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# The same myapp probes traced by two dtrace sessions and by bpftrace's
# usdt: at once (every tracer sees every firing), and a test-owned dtprobed
# restarted while those sessions run: programs started after the restart
# register again and are still traced, with args[] typed as declared.
# `dtrace -l -P 'myapp*'` lists the probes of a running registered program.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
build_all
start_daemon
# A program running when tracing starts: its file is then known to both
# sessions, so the processes started later are covered from their first
# instruction (files first seen later go through the exec watch).
bg "$W/app" 200 50 >/dev/null; holder=$!
wait_for 3 test -f "state/$holder" || fail "app did not register"

script='BEGIN { printf("ready\n"); }
myapp*:::tick { printf("tick %d %d\n", pid, args[0]); }
myapp*:::query-start { printf("qs %d %s %d\n", pid, copyinstr(args[0]), args[1]); }'
bg "$DTRACE" -q -n "$script" >out1 2>err1; dt1=$!
bg "$DTRACE" -q -n "$script" >out2 2>err2; dt2=$!
bt=
if command -v bpftrace >/dev/null; then
	bpftrace -e "usdt:$W/app:myapp:tick { printf(\"tick %d %d\n\", pid, arg0); }" \
		>outb 2>errb &
	bt=$!; bgpids+=("$bt")
	# attached once the running program's ticks show
	wait_for 15 has_line outb "^tick $holder " ||
		{ cat errb; fail "bpftrace did not start"; }
fi
wait_for 10 has_line out1 '^ready$' && wait_for 10 has_line out2 '^ready$' ||
	{ cat err1 err2; fail "dtrace did not start"; exit 1; }

"$W/app" 4 20 >/dev/null & a1=$!; wait $a1

stop_daemon
start_daemon
"$W/app" 40 50 >/dev/null & a2=$!
wait_for 5 test -f "state/$a2" || fail "no registration after the restart"
"$DTRACE" -l -P 'myapp*' >list 2>lerr || fail "dtrace -l -P"
for n in tick query-start noargs; do
	has_line list "^ *[0-9]+ +myapp +app +fire +$n\$" ||
		{ cat list lerr; fail "-l -P 'myapp*' does not list $n"; }
done
kill -9 $a2; wait $a2 2>/dev/null
"$W/app" 3 20 >/dev/null & a3=$!; wait $a3
sleep 0.3
kill -INT $dt1 $dt2; wait $dt1 $dt2
[ -n "$bt" ] && { kill -INT $bt; wait $bt; }

for o in out1 out2; do
	for i in 0 1 2 3; do
		has_line $o "^tick $a1 $i\$" || fail "$o: tick $i of $a1 missed"
		has_line $o "^qs $a1 hello $i\$" || fail "$o: query-start $i of $a1 missed"
	done
	for i in 0 1 2; do
		has_line $o "^qs $a3 hello $i\$" ||
			fail "$o: query-start $i of $a3 (after the restart) missed"
	done
	[ "$(grep -c "^tick $a1 " $o)" = 4 ] || fail "$o: ticks of $a1 not once each"
done
if [ -n "$bt" ]; then
	for i in 0 1 2 3; do
		has_line outb "^tick $a1 $i\$" || fail "bpftrace: tick $i of $a1 missed"
	done
	for i in 0 1 2; do
		has_line outb "^tick $a3 $i\$" || fail "bpftrace: tick $i of $a3 missed"
	done
fi
[ $status = 0 ] || { head -50 out1 err1 outb errb; }
exit $status
