#!/bin/bash
# SPDX-License-Identifier: MIT
# A library that a -p target dlopen()s while dtrace is still starting is
# traced (-Z).  The target waits until a uprobe is on its own function
# work() (it reads the int3 in its own text: dtrace is attaching, its
# descriptions were matched against the target's modules before that)
# and dlopen()s the library at once.  Before, the pid provider took the
# mappings it compared later from start(), which came after the dlopen:
# the library was taken as known and never traced (4 runs of 6 missed
# it, and under load a whole make check run did).
. "$TESTDIR/sh/lib/test_lib.sh"
need_dtrace
need_cmd cc

cat >lib.c <<'C'
int lib_fn(int i);
int lib_fn(int i) { return i + 1; }
C
cat >armed.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) int work(int i)
{
	__asm__ volatile("" ::: "memory");
	return i;
}

static void sleep_ms(long n)
{
	struct timespec ts = { n / 1000, (n % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	while (*(volatile unsigned char *)(void *)work != 0xcc)
		sleep_ms(1);	/* no uprobe on work() yet */
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL)
		return 1;
	int (*f)(int) = (int (*)(int))dlsym(h, "lib_fn");
	sleep_ms(1500);		/* the provider polls every 100 ms */
	int sum = work(0);
	for (int i = 0; i < 20; i++) {
		sum += f(i);
		sleep_ms(20);
	}
	printf("%d\n", sum);
	return 0;
}
C
cc -O2 -fPIC -shared -o liblate.so lib.c && cc -O2 -o armed armed.c -ldl ||
	exit 1

for run in 1 2 3; do
	./armed "$PWD/liblate.so" >armed.out &
	a=$!
	timeout 30 "$DTRACE" -Z -q -x debug -p $a -n '
	pid$target:armed:work:entry { printf("work\n"); }
	pid$target:liblate.so:lib_fn:entry { printf("lib_fn %d\n", arg0); }' \
		>out 2>err
	wait $a
	[ "$(cat armed.out)" = 210 ] ||
		fail "run $run: the target computed '$(cat armed.out)', not 210"
	grep -qx work out ||
		fail "run $run: the target's own function was not traced"
	[ "$(grep -c '^lib_fn ' out)" = 20 ] || {
		fail "run $run: $(grep -c '^lib_fn ' out) of the 20 calls of the library dlopen'ed while dtrace started were traced"
		cat err
	}
done
exit $status
