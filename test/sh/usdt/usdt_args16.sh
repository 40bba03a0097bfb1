#!/bin/bash
# SPDX-License-Identifier: MIT
# Probes of more than 12 arguments, up to 16 (DTRACE_ARGS_MAX; <sys/sdt.h>
# passes 12): `dtrace -h` makes their macros (DTRACE_USDT_PROBE14/16 of
# <dtrace/usdt.h>), `dtrace -G` links their declarations (the mappings of
# translated arguments past the 12th too), dtprobed takes their
# registration, and args[12] .. args[15] read as declared, with -c and for
# a process that registers while a session traces every process.  Also a
# double and a float passed through the same macros, printed with %f, and
# a declaration of 17 arguments refused, and a probe of every count from 0
# to 16 compiles.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"

cat >many.d <<'D'
provider many {
	probe fourteen(int, int, int, int, int, int, int, int, int, int, int,
		       int, long, char *);
	probe sixteen(int a, int b, int c, int d, int e, int f, int g, int h,
		      int i, int j, int k, int l, int m, int n, long o,
		      char *p) :
		     (char *p, long o, int n, int m, int l, int k, int j,
		      int i, int h, int g, int f, int e, int d, int c, int b,
		      int a);
	probe flt(double, float, int);
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
	volatile double d = 2.5;
	volatile float f = 1.25f;
	while (argc > 2 && access(argv[2], F_OK) != 0)
		usleep(10000);
	for (int i = 0; i < n; i++) {
		MANY_FOURTEEN(i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
			      1200L + i, "thirteen");
		MANY_SIXTEEN(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
			     1400L + i, "p");
		MANY_FLT(d * (i + 1), f * (i + 1), i);
	}
	return 0;
}
C
"$DTRACE" -h -s many.d -o many.h >out 2>err || fail_run "dtrace -h"
PROV=many.d build_app many cc many.c "-O2" "" || exit 1
start_daemon

prog='many*:::fourteen { printf("14 %d %d %d %s\n", args[0], args[11],
	args[12], copyinstr(args[13])); }
many*:::sixteen { printf("16 %s %d %d %d %d %d\n", copyinstr(args[0]),
	args[1], args[2], args[12], args[13], args[15]); }
many*:::flt { printf("flt %f %f %d\n", args[0], args[1], args[2]); }'
expected='14 0 11 1200 thirteen
16 p 1400 13 3 2 0
flt 2.500000 1.250000 0
14 1 11 1201 thirteen
16 p 1401 13 3 2 0
flt 5.000000 2.500000 1'
"$DTRACE" -q -n "${prog//\*/\$target}" -c "$W/many 2" >out 2>err
rc=$?
[ $rc = 0 ] && [ "$(grep -v '^$' out)" = "$expected" ] && [ ! -s err ] ||
	fail_run "-c" "$expected"

# registered while a session traces every process: named after its pid,
# its arguments typed by its registration (one that registered before
# the session, waiting for the file go, so that the description matches)
bg "$W/many" 1 go; app=$!
wait_for 10 test -f "state/$app" || fail_run "many did not register"
"$DTRACE" -q -n 'BEGIN { printf("ready\n"); }
many*:::sixteen { printf("%s %d %d %d\n", probeprov, pid, args[13],
	args[14]); }' >out 2>err &
dt=$!
wait_for 10 has_line out '^ready$' || fail_run "dtrace did not start"
touch go; wait $app
one() { [ "$(grep -c "^many$app $app " out)" = 1 ]; }
wait_for 10 one || fail_run "firing missed"
kill -INT $dt; wait $dt
expected="many$app $app 2 1"
[ "$(grep -v -e '^ready$' -e '^$' out)" = "$expected" ] ||
	fail_run "every process" "$expected"

# every count from 0 to 16 has its macro: a header with one probe of each
# compiles, C and C++, warnings as errors
{
	echo 'provider arity {'
	for n in $(seq 0 16); do
		printf '\tprobe p%d(' "$n"
		for i in $(seq 1 "$n"); do
			printf '%sint' "$([ "$i" = 1 ] || echo ', ')"
		done
		printf ');\n'
	done
	echo '};'
} >arity.d
{
	echo '#include "arity.h"'
	echo 'void fire(int x);'
	echo 'void fire(int x) {'
	for n in $(seq 0 16); do
		printf '\tARITY_P%d(' "$n"
		for i in $(seq 1 "$n"); do
			printf '%sx + %d' "$([ "$i" = 1 ] || echo ', ')" "$i"
		done
		printf ');\n'
	done
	echo '}'
} >arity.c
"$DTRACE" -h -s arity.d -o arity.h >out 2>err || fail_run "dtrace -h, 0 to 16"
cc -Wall -Wextra -Werror -O2 -c -o arity.o arity.c >out 2>err ||
	fail_run "cc, 0 to 16"
c++ -Wall -Wextra -Werror -O2 -x c++ -c -o arity_cxx.o arity.c >out 2>err ||
	fail_run "c++, 0 to 16"
notes=$(readelf -n arity.o | grep 'Arguments:')
[ "$(echo "$notes" | wc -l)" = 17 ] &&
	[ "$(echo "$notes" | tail -n 1 | grep -o @ | wc -l)" = 16 ] ||
	fail_run "notes of 0 to 16 arguments" "$notes"

# 17 arguments: more than a probe site passes (the 17th, on line 3, is
# named)
cat >seventeen.d <<'D'
provider big {
	probe seventeen(int, int, int, int, int, int, int, int, int, int,
			int, int, int, int, int, int, int);
};
D
"$DTRACE" -x errtags -h -s seventeen.d -o seventeen.h >out 2>err
rc=$?
expected='dtrace: failed to compile script seventeen.d: [D_PROV_INCOMPAT] line 3: too many probe arguments (at most 16)'
[ $rc = 1 ] && [ "$(cat err)" = "$expected" ] && [ ! -e seventeen.h ] ||
	fail_run "17 arguments" "$expected"
exit $status
