#!/bin/bash
# SPDX-License-Identifier: MIT
# A function built with gcc -fcf-protection=full -pg -mfentry -mnop-mcount
# begins with endbr64 and a 5-byte nop.  Its entry probe goes past the
# endbr64, on the 5-byte nop, where a 5-byte nop entry would be probed:
# where the kernel's optimized uprobe would crash a child the process forks
# (dt_nop5.c) it stays on the endbr64 (-x debug says why), and
# -x pid.nop5=place puts it on the 5-byte nop all the same, with the
# warning.  In every placement the probe reads f's arguments and pc, and
# by default a child forked while traced finishes.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd gcc

cat >e5.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) long f(long a, long b)
{
	__asm__ volatile("");
	return a * 3 + b;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3, s = 0;
	pid_t c = -1;

	for (long i = 0; i < n; i++) {
		if (i == n / 2 && argc > 2 && strcmp(argv[2], "fork") == 0)
			c = fork();
		s += f(i, 2 * i) - 5 * i;
	}
	printf("done %s\n", c == 0 ? "child" : "parent");
	fflush(stdout);
	if (c > 0)
		waitpid(c, NULL, 0);
	return s == 0 ? 0 : 1;
}
C
# -pg at compile time only: the 5-byte nop without gprof's start files
gcc -O2 -fcf-protection=full -pg -mfentry -mnop-mcount -fno-pie -c e5.c &&
	gcc -no-pie -o e5 e5.o || { fail "cannot build e5"; exit 1; }
objdump -d e5 | grep -A2 '<f>:$' | grep -q 'nopl *0x0(%rax,%rax,1)' ||
	{ objdump -d e5 | grep -A3 '<f>:$'; fail "f has no 5-byte nop after its endbr64"; exit 1; }

clause='pid$target:a.out:f:entry { printf("f %d %d %A\n", arg0, arg1, uregs[R_PC]); }'
want_f() {
	for i in "$@"; do
		grep -qx "f $i $((2 * i)) e5\`f" out || { cat out err; fail "no firing f($i, $((2 * i))) at f"; }
	done
}
"$DTRACE" -x debug -q -c "./e5 6 fork" -n "$clause" >out 2>err ||
	{ cat err; fail "auto: dtrace failed"; }
[ "$(grep -c '^done' out)" = 2 ] || { cat out err; fail "auto: a process did not finish"; }
[ "$(grep -c '^f ' out)" = 6 ] || { cat out err; fail "auto: not 6 firings"; }
want_f 0 1 2 3 4 5
placed=$(sed -n 's/.*pid: probe pid[0-9]*:a.out:f:entry: placed //p' err)
case $placed in
"on the function's endbr64 (classic: the instruction after it is a 5-byte nop, which this kernel turns into a call that a child the process forks would crash on; -x pid.nop5=place places it there all the same)")
	unsafe=1 ;;
"past the function's endbr64, on a 5-byte nop (optimized)" | \
"past the function's endbr64, on a 5-byte nop (the kernel does not optimize it)")
	unsafe= ;;
*)	cat err; fail "auto: -x debug does not say where f:entry went" ;;
esac

# Placed on the 5-byte nop when told (the program does not fork).
"$DTRACE" -x pid.nop5=place -x debug -q -c "./e5 3" -n "$clause" >out 2>err ||
	{ cat err; fail "place: dtrace failed"; }
[ "$(grep -c '^f ' out)" = 3 ] || { cat out err; fail "place: not 3 firings"; }
want_f 0 1 2
grep -q "a.out:f:entry: placed past the function's endbr64, on a 5-byte nop" err ||
	{ cat err; fail "place: not placed on the 5-byte nop"; }
if [ -n "${unsafe:-}" ]; then
	grep -qx "dtrace: pid: -x pid.nop5=place: this kernel's optimized uprobes crash a child that a traced process forks: trace only programs that do not fork" err ||
		{ cat err; fail "place: no warning"; }
fi
exit $status
