#!/bin/bash
# A firing is one firing of one probe: with `myapp$target:::query-start`
# and `myapp*:::query-start /pid == $target/` in one session, each clause
# runs once per firing of the traced process, and both see the probe under
# the name DTrace gives it, myapp<pid>.  (The two descriptions once placed
# two uprobes on the one site, one for the process and one for every
# process, and the second clause ran twice per firing.)
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

"$DTRACE" -q -n 'myapp$target:::query-start { printf("A %s %s\n", probeprov, probeprov == strjoin("myapp", lltostr(pid)) ? "ok" : "bad"); }' \
	-n 'myapp*:::query-start /pid == $target/ { printf("B %s\n", probeprov == strjoin("myapp", lltostr(pid)) ? "ok" : "bad"); }' \
	-c "$W/app 3" >out 2>err || fail "dtrace failed"
got=$(grep -E '^[AB] ' out | sort | uniq -c | awk '{ print $1, $2, $NF }')
exp=$(printf '3 A ok\n3 B ok')
[ "$got" = "$exp" ] || { fail "clause counts and names"; cat out err; }
exit $status
