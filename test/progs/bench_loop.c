/* SPDX-License-Identifier: MIT */
/*
 * bench_loop.c: the target of the per-firing and aggregation benchmarks
 * (bench/firing.sh, bench/aggsnap.sh).
 *
 *   bench_loop [N [nop5|endbr|endbr5]]
 *
 * Calls bench_fn(i) for i = 0 .. N-1 (default 2,000,000) in a tight loop and
 * prints "bench_loop N calls T ns (sum S) exit E", T being the loop's own
 * wall time (CLOCK_MONOTONIC), so that start-up and attachment are not
 * counted, and E the wall clock (CLOCK_REALTIME, ns) just before exit, so
 * that a benchmark can time what a tracer does after the target exits.
 * bench_fn is in assembly: each iteration is one real call, and arg0 takes
 * N distinct values.  It sets up a frame pointer, so its first instruction
 * is "push %rbp", which the kernel's uprobe emulates, like the entry of
 * most compiled functions; an entry such as "lea" is single-stepped out of
 * line instead, about 35 times slower on these machines (14 us), and that
 * would dominate every figure.  With "nop5", bench_fn5 is called instead:
 * the same function with a 5-byte nop first (as gcc -pg -mfentry
 * -mnop-mcount makes entries), which a kernel with the optimized uprobe
 * turns into a call.  With "endbr", bench_fn_endbr, bench_fn after an
 * endbr64 (as -fcf-protection makes entries), which the kernel
 * single-steps; with "endbr5", bench_fn5 after one (both options).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An assembly function NAME, so that its entry does not depend on the
 * compiler's flags: the bytes of PREFIX, then the classic frame set-up,
 * then x + 1. */
#define BENCH_FN(name, prefix)					\
	".text\n.globl " name "\n.type " name ", @function\n"	\
	name ":\n" prefix					\
	"	push %rbp\n"					\
	"	mov %rsp, %rbp\n"				\
	"	lea 1(%rdi), %rax\n"				\
	"	pop %rbp\n"					\
	"	ret\n"						\
	".size " name ", . - " name "\n"
#define NOP5	"	.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
#define ENDBR64	"	endbr64\n"

long bench_fn(long x);
long bench_fn5(long x);
long bench_fn_endbr(long x);
long bench_fn_endbr5(long x);

__asm__(BENCH_FN("bench_fn", "")
	BENCH_FN("bench_fn5", NOP5)
	BENCH_FN("bench_fn_endbr", ENDBR64)
	BENCH_FN("bench_fn_endbr5", ENDBR64 NOP5));

/* The function the loop calls, named by the second argument. */
static long (*loop_fn(const char *name))(long)
{
	static const struct {
		const char *name;
		long (*fn)(long);
	} fns[] = {
		{ "nop5", bench_fn5 },
		{ "endbr", bench_fn_endbr },
		{ "endbr5", bench_fn_endbr5 },
	};

	for (size_t i = 0; name != NULL && i < sizeof(fns) / sizeof(fns[0]);
	     i++)
		if (strcmp(name, fns[i].name) == 0)
			return fns[i].fn;
	return bench_fn;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
	long (*volatile fn)(long) = loop_fn(argc > 2 ? argv[2] : NULL);
	struct timespec t0, t1, end;
	long sum = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (fn == bench_fn)	/* a direct call, as before */
		for (long i = 0; i < n; i++)
			sum += bench_fn(i);
	else
		for (long i = 0; i < n; i++)
			sum += fn(i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	clock_gettime(CLOCK_REALTIME, &end);
	printf("bench_loop %ld calls %lld ns (sum %ld) exit %lld\n", n,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec),
	       sum, (long long)end.tv_sec * 1000000000LL + end.tv_nsec);
	return 0;
}
