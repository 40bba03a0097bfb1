/* SPDX-License-Identifier: MIT */
/*
 * napper: a program that spends a known time off CPU, for the sched
 * provider's tests.
 *
 *   napper [N [MS]]
 *
 * Calls nap() N times (default 4), which sleeps MS milliseconds (default
 * 50) in usleep(), so that the program is off CPU N * MS ms under the
 * stack usleep/nanosleep <- nap <- main.  Prints "done" at the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) void nap(unsigned ms)
{
	usleep(ms * 1000);
	__asm__ volatile("" ::: "memory");	/* no tail call: nap stays on
						   the stack */
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	unsigned ms = argc > 2 ? (unsigned)atoi(argv[2]) : 50;

	for (int i = 0; i < n; i++)
		nap(ms);
	printf("done\n");
	return 0;
}
