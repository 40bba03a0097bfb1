#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A firing is one firing of one probe: with `myapp$target:::query-start`
# and `myapp*:::query-start /pid == $target/` in one session, each clause
# runs once per firing of the traced process, and both see the probe under
# the name DTrace gives it, myapp<pid>.  (The two descriptions once placed
# two uprobes on the one site, one for the process and one for every
# process, and the second clause ran twice per firing.)  Alone, `myapp*`
# and the plain `myapp` name the process's probe too.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
write_provider
"$DTRACE" -h -s prov.d -o prov.h || { fail "dtrace -h"; exit 1; }
build_app app cc "$TESTDIR/usdt/app.c" "-O2" "" || exit 1
start_daemon

# Lines "CLAUSE PROBEPROV PID" become "CLAUSE ok" when PROBEPROV is myapp<PID>.
names() {
	awk '$1 ~ /^[ABC]$/ { print $1, ($2 == "myapp" $3 ? "ok" : $2) }' "$1" |
		sort | uniq -c | awk '{ print $1, $2, $3 }'
}

"$DTRACE" -q -n 'myapp$target:::query-start { printf("A %s %d\n", probeprov, pid); }' \
	-n 'myapp*:::query-start /pid == $target/ { printf("B %s %d\n", probeprov, pid); }' \
	-c "$W/app 3" >out 2>err || fail "dtrace failed"
got=$(names out)
exp=$(printf '3 A ok\n3 B ok')
[ "$got" = "$exp" ] || { fail "clause counts and names"; echo "$got"; cat out err; }

for d in 'myapp*' myapp; do
	# (other programs of the machine that carry myapp probes fire too)
	"$DTRACE" -q -n "$d"':::query-start /pid == $target/ {
		printf("C %s %d\n", probeprov, pid); }' \
		-c "$W/app 2" >out 2>err || fail "$d: dtrace failed"
	got=$(names out)
	[ "$got" = "2 C ok" ] || { fail "$d: names"; echo "$got"; cat out err; }
done
exit $status
