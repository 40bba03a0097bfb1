#!/bin/bash
# SPDX-License-Identifier: MIT
# Probes of 11 and 12 arguments, as many as <sys/sdt.h> passes: `dtrace -h`
# makes their macros (DTRACE_USDT_PROBE11/12 of <dtrace/usdt.h>), `dtrace
# -G` links their declarations, dtprobed takes their registration, and
# args[10] and args[11] read as declared, translated ones too, with -c and
# for a process that registers while a session traces every process
# (arg0 .. arg9 are the built-in variables, as in DTrace).
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"

cat >many.d <<'D'
provider many {
	probe eleven(int, long, char, short, int, int, long, long, int, int,
		     long);
	probe twelve(int a, int b, int c, int d, int e, int f, int g, int h,
		     int i, int j, long k, char *l) :
		    (char *l, long k, int j, int i, int h, int g, int f, int e,
		     int d, int c, int b, int a);
};
D
cat >many.c <<'C'
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include "many.h"
int main(int argc, char **argv)
{
	int n = atoi(argv[1]);
	while (argc > 2 && access(argv[2], F_OK) != 0)
		usleep(10000);
	for (int i = 0; i < n; i++) {
		MANY_ELEVEN(i, 1L, 2, 3, 4, 5, 6L, 7L, 8, 9, 1000L + i);
		MANY_TWELVE(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10L + i, "l");
	}
	return 0;
}
C
"$DTRACE" -h -s many.d -o many.h >out 2>err || fail_run "dtrace -h"
PROV=many.d build_app many cc many.c "-O2" "" || exit 1
start_daemon

prog='many*:::eleven { printf("11 %d %d %d %d\n", args[0], arg9, args[9], args[10]); }
many*:::twelve { printf("12 %s %d %d %d %d\n", copyinstr(args[0]), args[1],
	args[9], args[10], args[11]); }'
expected='11 0 9 9 1000
12 l 10 2 1 0
11 1 9 9 1001
12 l 11 2 1 0'
"$DTRACE" -q -n "${prog//\*/\$target}" -c "$W/many 2" >out 2>err
rc=$?
[ $rc = 0 ] && [ "$(grep -v '^$' out)" = "$expected" ] ||
	fail_run "-c" "$expected"

# registered while a session traces every process: named after its pid,
# one that mapped the file before the session (its probes made then) and
# one that starts while it traces
bg "$W/many" 1 go; early=$!
wait_for 10 test -f "state/$early" || fail_run "many did not register"
"$DTRACE" -q -n 'BEGIN { printf("ready\n"); }
many*:::eleven { printf("%s %d 11 %d %d\n", probeprov, pid, args[9], args[10]); }
many*:::twelve { printf("%s %d 12 %d %d\n", probeprov, pid, args[10], args[11]); }' \
	>out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || fail_run "dtrace did not start"
touch go; wait $early
"$W/many" 1
twelves() { [ "$(grep -c ' 12 ' out)" = 2 ]; }
wait_for 10 twelves || fail_run "firings missed"
kill -INT $dt; wait $dt
got=$(grep -v -e '^ready$' -e '^$' out | awk '{ $2 = ($1 == "many" $2) ? "named" : "unnamed " $2; $1 = ""; print }')
expected=' named 11 9 1000
 named 12 1 0
 named 11 9 1000
 named 12 1 0'
[ "$got" = "$expected" ] || fail_run "every process" "$expected"
exit $status
