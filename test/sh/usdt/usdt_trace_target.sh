#!/bin/bash
# SPDX-License-Identifier: MIT
# Programs built with our dtrace -h/-G (C and C++, -O2 and -O3 -flto, PIE
# and non-PIE), traced with `myapp$target:::` and -c while a test-owned
# dtprobed runs: args[] typed and mapped as prov.d declares them
# (query__start(int a, char *b) : (char *b, int a)), so copyinstr(args[0])
# is the string and args[1] the int while arg0/arg1 stay the raw native
# arguments; -l -v shows the declared types and the stability that the
# #pragma D attributes lines give, and -v reports them.
. "$TESTDIR/sh/lib/test_lib.sh"
. "$TESTDIR/usdt/trace_lib.sh"
build_all
start_daemon

for p in app app_lto app_nopie app_cxx; do
	"$DTRACE" -q -n '
myapp$target:::tick { printf("tick %s %d %d\n", probemod, args[0], arg0); }
myapp$target:::query-start {
	printf("qs %s %d %d %d\n", copyinstr(args[0]), args[1], arg0,
	    arg1 == (uint64_t)args[0]);
}
myapp$target:::noargs { printf("noargs %s\n", probefunc == "" ? "-" : "f"); }' \
		-c "$W/$p 3 10" >"$p.out" 2>"$p.err" || fail "$p: dtrace failed"
	exp=$(for i in 0 1 2; do
		echo "tick $p $i $i"; echo "qs hello $i $i 1"; echo "noargs f"
	done)
	got=$(grep -v '^enabled$' "$p.out" | grep -v '^$')
	[ "$got" = "$exp" ] || { fail "$p output"; diff <(echo "$exp") <(echo "$got"); cat "$p.err"; }
	[ "$(grep -c '^enabled$' "$p.out")" = 3 ] ||
		fail "$p: MYAPP_QUERY_START_ENABLED() not true while traced"
done

# -l -v: declared types, mapping and stability.
"$DTRACE" -l -v -n 'myapp$target:::query-start' -c "$W/app 1" >lv 2>lv.err ||
	fail "dtrace -l -v"
sed -e 's/^ *[0-9]* *myapp[0-9]* */PROBE /' lv >lv.got
cat >lv.exp <<'X'
   ID   PROVIDER            MODULE                          FUNCTION NAME
PROBE app                              fire query-start

	Probe Description Attributes
		Identifier Names: Evolving
		Data Semantics:   Unstable
		Dependency Class: ISA

	Argument Attributes
		Identifier Names: Unstable
		Data Semantics:   Stable
		Dependency Class: Platform

	Argument Types
		args[0]: char *
		args[1]: int

X
diff lv.exp lv.got || fail "-l -v output"

# -v: the report of the program, its description attributes as -l -v
# shows them, its statements' lowered to the arguments' by args[ ].
"$DTRACE" -q -v -n 'myapp$target:::query-start { trace(args[1]); }' \
	-c "$W/app 1" >v 2>v.err || fail "dtrace -v"
head -13 v >v.got
cat >v.exp <<'X'

Stability attributes for description myapp$target:::query-start :

	Minimum Probe Description Attributes
		Identifier Names: Evolving
		Data Semantics:   Unstable
		Dependency Class: ISA

	Minimum Statement Attributes
		Identifier Names: Unstable
		Data Semantics:   Stable
		Dependency Class: Platform

X
diff v.exp v.got || fail "-v report"

exit $status
