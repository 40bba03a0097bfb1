#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# @timeout: 60
# -x procprobes=N bounds the probes the programs make for processes that
# register while dtrace is stopped: with room for one, the first such
# process fires as its own probe (myapp<pid>), the second under the probe
# for every process (myapp), and dtrace says so once, naming the option.
# A negative count is refused.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

"$DTRACE" -x procprobes=-1 -n BEGIN >/dev/null 2>err &&
	fail "procprobes=-1 accepted"
grep -q "failed to set option -x procprobes" err ||
	fail "procprobes=-1: $(cat err)"

bg "$W/app" 400 50 >/dev/null; early=$!		# maps the file first
wait_for 3 test -f "state/$early" || fail "app did not register"
"$DTRACE" -x procprobes=1 -q -n 'BEGIN { printf("ready\n"); }
myapp*:::tick /pid != $1/ { printf("tick %s %d %d\n", probeprov, pid, args[0]); }' \
	$early >out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || { cat err; fail "dtrace did not start"; exit 1; }

kill -STOP $dt
pids=()
for go in go1 go2; do
	"$W/app" 2 20 wait $go >/dev/null & p=$!
	wait_for 10 test -f "state/$p" || fail "app $p did not register"
	touch $go
	wait $p
	pids+=($p)
done
kill -CONT $dt
sleep 0.5
kill -INT $dt; wait $dt

first=${pids[0]} second=${pids[1]}
for i in 0 1; do
	has_line out "^tick myapp$first $first $i\$" ||
		fail "first process: tick $i not seen as myapp$first"
	has_line out "^tick myapp $second $i\$" ||
		fail "second process: tick $i not seen as myapp"
done
[ "$(grep -c 'as many as they may (-x procprobes)' err)" = 1 ] ||
	fail "no one warning of the limit"
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
