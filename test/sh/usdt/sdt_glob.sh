#!/bin/bash
# SPDX-License-Identifier: MIT
# @alone
# A provider glob with no pid (sdt_test*) covers every process mapping the
# file: one running before dtrace starts and one started afterwards, whose
# first firing is not missed; each firing is named as DTrace names it, the
# provider followed by the pid of the process (sdt_test1234).  Also a
# probe whose argument cannot be decoded (%fs:8, through a segment): one
# warning naming the probe, and its other argument still reads.
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_sdt
bin=$PWD/sdt_args
build_sdt "$bin" "$TESTDIR/progs/sdt_args.c" -g

"$bin" 0 20 >/dev/null &
old=$!
sleep 0.2
"$DTRACE" -q -n 'sdt_test*:::many { printf("%s %s %s %d %d\n", probeprov, probemod, probefunc, pid, arg0); }' >out 2>err &
dt=$!
wait_line out "^sdt_test$old sdt_args fire_many $old " ||
	{ echo "the running process's probe did not fire:"; cat out err; status=1; }
"$bin" 3 10 >/dev/null &
new=$!
wait "$new"
sleep 0.3
kill -INT "$dt"
wait "$dt"
kill "$old"
wait "$old" 2>/dev/null
actual=$(grep " $new " out)
expected="sdt_test$new sdt_args fire_many $new 0
sdt_test$new sdt_args fire_many $new 1
sdt_test$new sdt_args fire_many $new 2"
if [ "$actual" != "$expected" ]; then
	echo "the process started later printed:"; echo "$actual"
	echo "expected:"; echo "$expected"; cat err
	status=1
fi

# An argument read through %fs cannot be decoded; arg1 (%rax) still works.
cat >bad.c <<'C'
#include <sys/sdt.h>
void fire_bad(long x);
void fire_bad(long x)
{
	__asm__ volatile("mov %0, %%rax" :: "r"(x) : "rax");
	__asm__ volatile(STAP_PROBE_ASM(bad_test, mixed, -4@%fs:8 8@%rax));
}
int main(void) { fire_bad(42); fire_bad(43); return 0; }
C
build_sdt bad bad.c
"$DTRACE" -q -n 'bad_test$target:::mixed { printf("%d %d\n", arg0, arg1); }' \
	-c ./bad >out 2>err
if [ "$(sed '/^$/d' out)" != "0 42
0 43" ]; then
	echo "undecodable argument: printed:"; cat out err
	status=1
fi
if [ "$(grep -c 'cannot decode' err)" != 1 ] ||
   ! grep -Eq '^dtrace: .*probe bad_test[0-9]+:bad:fire_bad:mixed: cannot decode argument 0 \("-4@%fs:8"\): arg0 reads as 0$' err; then
	echo "undecodable argument: messages:"; cat err
	status=1
fi
exit $status
