/* SPDX-License-Identifier: MIT */
/*
 * unwind_nofp: a deep call chain without frame pointers, for
 * bench/ustack.sh's comparison of the unwinders (built -O2
 * -fomit-frame-pointer, as Debian's libraries are).
 *
 *   unwind_nofp N     N times: chain(24), which recurses through
 *                     hop_a and hop_b (24 frames) down to leaf()
 */
#include <stdio.h>
#include <stdlib.h>

#define OPAQUE() __asm__ volatile("" ::: "memory")

volatile long sink;

__attribute__((noinline)) long leaf(long n)
{
	sink += n;
	OPAQUE();
	return sink;
}

long hop_b(int depth, long acc);

/* Two functions, so that each frame's return address differs. */
__attribute__((noinline)) long hop_a(int depth, long acc)
{
	long r = depth == 0 ? leaf(acc) : hop_b(depth - 1, acc * 3 + 1);

	OPAQUE();	/* no tail call: the frame stays */
	return r + depth;
}

__attribute__((noinline)) long hop_b(int depth, long acc)
{
	long r = depth == 0 ? leaf(acc) : hop_a(depth - 1, acc + 7);

	OPAQUE();
	return r ^ depth;
}

__attribute__((noinline)) long chain(int depth)
{
	long r = hop_a(depth, 1);

	OPAQUE();
	return r;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	for (long i = 0; i < n; i++)
		chain(24);
	printf("done\n");
	return 0;
}
