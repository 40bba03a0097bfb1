/* SPDX-License-Identifier: MIT */
/*
 * nofp: a program whose stacks the unwinder must get right without frame
 * pointers: every function is built with -fomit-frame-pointer (the pragma
 * overrides the test programs' -fno-omit-frame-pointer), as Debian's
 * libraries are.
 *
 *   nofp N     calls level1(i) for i = 0 .. N-1, which calls level2, which
 *              calls level3, which mallocs (and frees) 200 + i bytes
 *
 * Prints "done" at the end.
 */
#pragma GCC optimize("O2", "omit-frame-pointer", "no-inline")
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OPAQUE() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) void *level3(size_t n)
{
	void *p = malloc(n);

	if (p != NULL)
		memset(p, 1, n);
	return p;
}

__attribute__((noinline)) void *level2(size_t n)
{
	void *p = level3(n + 1);

	OPAQUE();
	return p;
}

__attribute__((noinline)) void *level1(size_t n)
{
	void *p = level2(n * 2);

	OPAQUE();
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	for (int i = 0; i < n; i++)
		free(level1(100 + (size_t)i));
	printf("done\n");
	return 0;
}
