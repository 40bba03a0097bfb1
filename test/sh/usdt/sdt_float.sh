#!/bin/bash
# SPDX-License-Identifier: MIT
# <sys/sdt.h> floating-point arguments ("8f@%rax", "4f@%edx" at -O2,
# "8f@-16(%rbp)" at -O0): argN is the value's bits (a float's 4 bytes
# zero-extended), args[N] is typed double or float, so printf's %f prints
# the value, and `dtrace -lv` says so.  A value in an SSE register
# ("8f@%xmm0", which STAP_SDT_ARG_CONSTRAINT=norx makes) cannot be read
# from a uprobe's registers: each such argument is named once and reads
# as 0, the other arguments are still read.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt

cat >fl.c <<'C'
#include <stdlib.h>
#include <sys/sdt.h>
int main(int argc, char **argv)
{
	volatile double d = 2.5;
	volatile float f = 1.25f;
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 1; i <= n; i++) {
		double dd = d * i;
		float ff = f * i;
		DTRACE_PROBE3(fl, point, dd, ff, i);
	}
	return 0;
}
C
build_sdt fl_O2 fl.c
build_sdt fl_O0 fl.c -O0
build_sdt fl_sse fl.c -DSTAP_SDT_ARG_CONSTRAINT=norx

prog='fl$target:::point { printf("%f %f %d %x %x\n", args[0], args[1],
	args[2], arg0, arg1); }'
expected='2.500000 1.250000 1 4004000000000000 3fa00000
5.000000 2.500000 2 4014000000000000 40200000'
for bin in fl_O2 fl_O0; do
	"$DTRACE" -q -n "$prog" -c "./$bin 2" >out 2>err
	rc=$?
	[ $rc = 0 ] && [ "$(sed '/^$/d' out)" = "$expected" ] && [ ! -s err ] ||
		fail_run "$bin" "$expected"
done

"$DTRACE" -lv -n 'fl$target:::point' -c ./fl_O2 >out 2>err
rc=$?
got=$(grep 'args\[' out)
expected='		args[0]: double
		args[1]: float
		args[2]: int'
[ $rc = 0 ] && [ "$got" = "$expected" ] || fail_run "dtrace -lv" "$expected"

"$DTRACE" -q -n "$prog" -c "./fl_sse 2" >out 2>err
rc=$?
expected='0.000000 0.000000 1 0 0
0.000000 0.000000 2 0 0'
[ $rc = 0 ] && [ "$(sed '/^$/d' out)" = "$expected" ] ||
	fail_run "SSE registers" "$expected"
expected='dtrace: probe flPID:fl_sse:main:point: cannot read argument 0 ("8f@%xmm0"): a uprobe does not see SSE registers; arg0 reads as 0
dtrace: probe flPID:fl_sse:main:point: cannot read argument 1 ("4f@%xmm1"): a uprobe does not see SSE registers; arg1 reads as 0'
got=$(sed -E 's/^dtrace: probe fl[0-9]+:/dtrace: probe flPID:/' err)
[ "$got" = "$expected" ] || fail_run "SSE registers' messages" "$expected"
exit $status
