/* SPDX-License-Identifier: MIT */
/*
 * hammer2.c: two threads fire one function as fast as they can, for the
 * tests that count firings while the consumer works on the aggregation
 * (test/sh/consumer/clear_exact.sh).
 *
 *   hammer2 [N]
 *
 * Each thread calls hammer_fn() N times (default 100,000); then the
 * program prints "hammer2 TOTAL calls", TOTAL being both threads' calls.
 * hammer_fn is in assembly and starts with "push %rbp", which the kernel's
 * uprobe emulates (bench_loop.c says why that matters).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

long hammer_fn(long x);

__asm__(".text\n"
	".globl hammer_fn\n"
	".type hammer_fn, @function\n"
	"hammer_fn:\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	lea 1(%rdi), %rax\n"
	"	pop %rbp\n"
	"	ret\n"
	".size hammer_fn, . - hammer_fn\n");

static long calls_each = 100000;

static void *hammer(void *arg)
{
	long sum = 0;

	for (long i = 0; i < calls_each; i++)
		sum += hammer_fn(i);
	*(long *)arg = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	long sums[2];

	if (argc > 1)
		calls_each = strtol(argv[1], NULL, 10);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, hammer, &sums[i]) != 0) {
			perror("hammer2: pthread_create");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("hammer2 %ld calls\n", 2 * calls_each);
	return 0;
}
