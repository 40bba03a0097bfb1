#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# `myapp*:::` over every process, with a test-owned dtprobed: a process
# running before dtrace, one started after it (same program file), a child
# made by fork (traced under its own pid), a library with probes loaded with
# dlopen by a process started later and closed with dlclose, and a program
# file that no process had mapped, reached by exec from a running shell.
# Files that no process mapped when tracing began are placed by the exec
# watch a few milliseconds after they appear (dt_exec.c), so for those only
# the firings after the first 200 ms are required.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
build_all
start_daemon

bg "$W/app" 80 50 >/dev/null; early=$!			# 4 s, before dtrace
wait_for 3 test -f "state/$early" || fail "app did not register"

"$DTRACE" -q -n 'BEGIN { printf("ready\n"); }
myapp*:::tick { printf("tick %s %d %d\n", probemod, pid, args[0]); }
myapp*:::query-start /copyinstr(args[0]) == "lib"/ {
	printf("lib %s %s %d %d\n", probemod, probefunc, pid, args[1]);
}' >out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || { cat err; fail "dtrace did not start"; exit 1; }

"$W/app" 3 20 >/dev/null & late=$!
"$W/app" 1 100 fork >/dev/null & parent=$!
cp lib.so libfresh.so && cp app app_fresh
"$W/app" 12 50 dlopen "$W/libfresh.so" >/dev/null & dl=$!
bash -c "sleep 0.3; exec '$W/app_fresh' 8 50" >/dev/null & ex=$!
wait $late $parent $dl $ex
sleep 0.2
kill -INT $dt; wait $dt

for i in 0 1 2; do
	has_line out "^tick app $late $i\$" || fail "late process: tick $i missed"
done
grep -q "^tick app $early " out || fail "early process not traced"
child=$(sed -n "s/^tick app \([0-9]*\) 100\$/\1/p" out | head -1)
[ -n "$child" ] && [ "$child" != "$parent" ] ||
	fail "no tick 100 from a child of $parent under its own pid"
for i in 100 101 102; do
	has_line out "^tick app $child $i\$" || fail "forked child: tick $i missed"
done
has_line out "^tick app $parent 0\$" || fail "forking parent: tick 0"
for i in 4 5 6 7 8 9 10 11; do
	has_line out "^lib libfresh.so lib_func $dl $i\$" ||
		fail "dlopen'ed library: firing $i missed"
done
for i in 4 5 6 7; do
	has_line out "^tick app_fresh $ex $i\$" || fail "exec'd program: tick $i missed"
done
[ $status = 0 ] || { echo "--- out"; cat out; echo "--- err"; cat err; }
exit $status
