#!/bin/bash
# SPDX-License-Identifier: MIT
# A function whose entry is a 5-byte nop (as gcc -pg -mfentry -mnop-mcount
# and clang -fpatchable-function-entry=5 make them; written here in
# assembly, in a position-independent program) under pid$target::f:entry: where the kernel turns the probe into a call
# that a child forked afterwards would crash on (dt_nop5.c), the probe is
# refused by name; elsewhere it fires.  Either way the traced process and
# the child it forks after the first three calls both finish.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd gcc

cat >nop5.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* long f(long x): a 5-byte nop, then return 2 * x. */
__asm__(".text\n.globl f\n.type f, @function\nf:\n"
	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"lea (%rdi, %rdi), %rax\nret\n.size f, . - f\n");
long f(long x);

int main(void)
{
	long s = 0;

	for (long i = 0; i < 3; i++)
		s += f(i);
	pid_t c = fork();
	for (long i = 0; i < 3; i++)
		s += f(i);
	printf("done %s\n", c == 0 ? "child" : "parent");
	fflush(stdout);
	if (c > 0)
		waitpid(c, NULL, 0);
	return s == 12 ? 0 : 1;
}
C
gcc -O2 -o nop5 nop5.c || { echo "FAIL: cannot build nop5"; exit 1; }

"$DTRACE" -q -n 'pid$target::f:entry { printf("f %d\n", arg0); }' \
	-c ./nop5 >out 2>err
[ "$(grep -c '^done' out)" = 2 ] ||
	{ echo "FAIL: a traced process did not finish:"; cat out err; status=1; }
if grep -q 'skipped' err; then
	grep -q "^dtrace: probe pid[0-9]*:a.out:f:entry skipped: its instruction is a 5-byte nop, which this kernel turns into a call that a child the process forks would crash on (-x pid.nop5=place places it all the same)$" err ||
		{ echo "FAIL: the refusal does not say why:"; cat err; status=1; }
	! grep -q '^f ' out || { fail "a refused probe fired"; }
else
	[ "$(grep -c "^f " out)" = 6 ] ||
		{ echo "FAIL: not 6 firings in the target:"; cat out err; status=1; }
fi
exit $status
