/* SPDX-License-Identifier: MIT */
/*
 * uprobe_target: a process for the uprobe tests to trace.
 *
 *   uprobe_target [N]
 *
 * Prints its pid on a line, then for every line read on stdin runs one
 * round: target_fn(i) for i = 1 .. N (default 10) and target_fn2(i) for
 * i = 1 .. N / 2, then prints "done SUM" where SUM is the sum of the values
 * target_fn returned.  Exits at end of input.  target_fn(x) returns 2 * x.
 * The functions are kept out of line and out of interprocedural
 * optimization so that their symbols are their only copies.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline, noipa)) long target_fn(long x);
__attribute__((noinline, noipa)) long target_fn2(long x);

long target_fn(long x)
{
	__asm__ volatile("" ::: "memory");
	return 2 * x;
}

long target_fn2(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	char line[64];

	printf("%ld\n", (long)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		long sum = 0;
		for (long i = 1; i <= n; i++)
			sum += target_fn(i);
		for (long i = 1; i <= n / 2; i++)
			target_fn2(i);
		printf("done %ld\n", sum);
		fflush(stdout);
	}
	return 0;
}
