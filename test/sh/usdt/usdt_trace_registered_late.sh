#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# @timeout: 90
# A process that registers with dtprobed while `myapp*:::` is traced, on a
# file already probed, fires as its own probe (probeprov myapp<pid>) with
# its arguments from its first firing: once while dtrace runs, and once
# while dtrace is stopped (SIGSTOP), when only the programs can name it:
# their trampoline finds the process's sites in dtprobed's pinned map.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

bg "$W/app" 400 50 >/dev/null; early=$!		# maps the file first
wait_for 3 test -f "state/$early" || fail "app did not register"

"$DTRACE" -q -n 'BEGIN { printf("ready\n"); }
myapp*:::tick { printf("tick %s %d %d\n", probeprov, pid, args[0]); }
myapp*:::query-start { printf("query %s %d %d %s\n", probeprov, pid, args[1],
	copyinstr(args[0])); }' >out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || { cat err; fail "dtrace did not start"; exit 1; }

"$W/app" 3 20 >/dev/null & late=$!
wait $late

kill -STOP $dt
"$W/app" 3 20 wait go1 >/dev/null & stopped=$!
wait_for 10 test -f "state/$stopped" || fail "app did not register"
touch go1
wait $stopped
wait_for 3 test ! -f "state/$stopped"
kill -CONT $dt
sleep 0.5
kill -INT $dt; wait $dt

for p in $late $stopped; do
	for i in 0 1 2; do
		has_line out "^tick myapp$p $p $i\$" ||
			fail "process $p: tick $i not seen as myapp$p"
		has_line out "^query myapp$p $p $i hello\$" ||
			fail "process $p: query-start $i not seen as myapp$p"
	done
	! grep -q "^tick myapp $p " out || fail "process $p fired as myapp"
done
grep -q "^tick myapp$early $early " out || fail "early process not traced"
[ $status = 0 ] || { echo "--- out"; grep -v "^[a-z]* myapp$early " out;
	echo "--- err"; cat err; }

# The same with -Z, on a file that no process mapped when tracing began,
# nor any registration named (the early process forgotten first: the
# program built then must look registrations up all the same): the first
# process of it gets it probed, the next one registers while dtrace is
# stopped.  In JSON, the probe of each record is named as probeprov reads.
kill $early; wait $early 2>/dev/null
wait_for 5 test ! -f "state/$early" || fail "the early process not forgotten"
cp app app_z
"$DTRACE" -Z -q -x oformat=json -n 'BEGIN { printf("ready\n"); }
myapp*:::tick /execname == "app_z"/ {
	printf("tick %s %d %d\n", probeprov, pid, (int)arg0); }' >out 2>err &
dt=$!
wait_for 10 grep -q '"output":"ready' out || { cat err; fail "dtrace -Z did not start"; exit 1; }
bg "$W/app_z" 400 50 >/dev/null; first=$!
wait_for 5 grep -q "\"output\":\"tick myapp$first $first " out ||
	fail "-Z: the first process was not traced"
kill -STOP $dt
# It fires once dtprobed recorded it: a registration the daemon takes
# longer than the program's 200 ms wait to read (a loaded machine) leaves
# the firings before it under the probe for every process.
"$W/app_z" 3 20 wait go >/dev/null & stopped=$!
wait_for 10 test -f "state/$stopped" || fail "-Z: app_z did not register"
touch go
wait $stopped
kill -CONT $dt
sleep 0.5
kill -INT $dt; wait $dt
for i in 0 1 2; do
	grep -qF "\"provider\":\"myapp$stopped\",\"module\":\"app_z\",\"function\":\"fire\",\"name\":\"tick\"},\"actions\":[{\"action\":\"printf\",\"format\":\"tick %s %d %d\\n\",\"output\":\"tick myapp$stopped $stopped $i\\n\"" out ||
		fail "-Z: process $stopped: tick $i not seen as myapp$stopped"
done
[ $status = 0 ] || { echo "--- out"; grep -v "myapp$first" out;
	echo "--- err"; cat err; }
exit $status
