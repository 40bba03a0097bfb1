#!/bin/bash
# SPDX-License-Identifier: MIT
# <sys/sdt.h> probes of every argument form (test/progs/sdt_args.c: $imm,
# registers of every width, -N(%rbp), (%rsp), sym(%rip), sym+N(%rip),
# (%base,%index,scale)) built at -O0 and -O2, traced with -c: arg0..arg9
# and args[10], args[11] (a probe of 12 arguments, the most sdt.h passes)
# must be the values the program passed, sign- or zero-extended by their
# declared size; the string argument reads with copyinstr.  The nine
# sites share one program, which carries each site's specification as
# code of its own; at -O2 also through the table looked up by cookie
# (DTRACE_BENCH_USDT_LOOKUP), the way of sites placed later.  Also the
# naming: provider with the pid, module the program's file name, function
# the containing function, and "dtrace -l" for sdt_test$target.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt

script='
sdt_test$target:::consts, sdt_test$target:::regs, sdt_test$target:::globals
{ printf("%s %d %d %d %d %d %d\n", probename, arg0, arg1, arg2, arg3, arg4, arg5); }
sdt_test$target:::array, sdt_test$target:::stack, sdt_test$target:::fields
{ printf("%s %d %d %d %d\n", probename, arg0, arg1, arg2, arg3); }
sdt_test$target:::string
{ printf("%s %s %d\n", probename, copyinstr(arg0), arg1); }
sdt_test$target:::many
{ printf("%s %d %d %d %d %d %d %d %d %d %d %d %d\n", probename, arg0, arg1,
  arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, args[10], args[11]); }
sdt_test$target:::guarded
{ printf("%s %d %d\n", probename, arg0, arg1); }
'

# The program's iterations i = 0, 1 (see sdt_args.c).
expected='consts -5 -300 -70000 -5000000000 250 65000
regs -5 -300 -70000 -5000000000 250 4000000000
globals -7 1311768467463790320 200 -100 -1234 4000000000
array -60 -6 -40 70
stack -11 -22 33000000000 244
fields -31 -32 33 34
string hello sdt 0
many 0 1 2 3 4 5 6 7 8 9 10 11
guarded 0 1
consts -5 -300 -70000 -5000000000 250 65000
regs -6 -301 -70001 -5000000001 251 4000000001
globals -7 1311768467463790320 200 -100 -1234 4000000000
array -60 -6 -40 70
stack -12 -22 33000000001 244
fields -31 -32 33 34
string hello sdt 1
many 1 2 3 4 5 6 7 8 9 10 11 12
guarded 1 2'

for run in 0 2 2lookup; do
	opt=${run%lookup}
	bin=$PWD/sdt_args_O$opt
	[ -x "$bin" ] || gcc -O$opt -g -o "$bin" "$TESTDIR/progs/sdt_args.c" ||
		exit 1
	if [ "$run" = "$opt" ]; then
		"$DTRACE" -q -n "$script" -c "$bin 2" >out 2>err
	else
		DTRACE_BENCH_USDT_LOOKUP=1 "$DTRACE" -q -n "$script" \
			-c "$bin 2" >out 2>err
	fi
	# The program's own last line (it shares stdout) comes in any order:
	# the guarded code ran twice and the semaphore was set while traced.
	actual=$(grep -v ' semaphore ' out | sed '/^$/d')
	if ! grep -qx 'guarded 2 semaphore 1' out; then
		echo "$run: the program did not see the semaphore set:"
		cat out
		status=1
	fi
	if [ "$actual" != "$expected" ]; then
		echo "$run: printed:"; echo "$actual"; cat err
		echo "expected:"; echo "$expected"
		diff <(echo "$expected") <(echo "$actual")
		status=1
	fi
	if [ -s err ]; then
		echo "$run: unexpected messages:"; cat err
		status=1
	fi
done

# Naming, as dtrace -l shows it: sdt_test<pid>, module sdt_args_O2.
"$DTRACE" -l -n 'sdt_test$target:::' -c "$PWD/sdt_args_O2 1" >list 2>err
n=$(grep -Ec '^ *[0-9]+ +sdt_test[0-9]+ +sdt_args_O2 +fire_[a-z]+(\.[a-z]+\.[0-9]+)? +[a-z]+$' list)
if [ "$n" != 9 ]; then
	echo "dtrace -l: $n of 9 probes listed as expected:"; cat list err
	status=1
fi
if ! grep -Eq ' fire_guarded +guarded$' list; then
	echo "dtrace -l: no fire_guarded:guarded"; cat list
	status=1
fi
exit $status
