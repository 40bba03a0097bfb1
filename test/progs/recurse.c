/* SPDX-License-Identifier: MIT */
/*
 * recurse: a program for the return probes' tests, whose calls nest deeper
 * than the kernel keeps return probes for (64 pending per thread).
 *
 *   recurse DEPTH [REPEAT]
 *
 * Calls down(DEPTH) REPEAT times (default 1), which calls itself down to
 * down(0): DEPTH + 1 calls of down() each time, nested DEPTH + 1 deep.
 * Prints "done TOTAL" at the end, TOTAL the sum of the return values
 * (REPEAT * DEPTH).
 */
#include <stdio.h>
#include <stdlib.h>

/* Not a tail call, nor folded by the compiler: the asm is opaque to it. */
__attribute__((noinline)) int down(int n)
{
	if (n <= 0)
		return 0;
	int r = down(n - 1) + 1;
	__asm__ volatile("" ::: "memory");
	return r;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 1000;
	int repeat = argc > 2 ? atoi(argv[2]) : 1;
	long total = 0;

	for (int i = 0; i < repeat; i++)
		total += down(depth);
	printf("done %ld\n", total);
	return 0;
}
