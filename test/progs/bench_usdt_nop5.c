/* SPDX-License-Identifier: MIT */
/*
 * bench_usdt_nop5.c: the target of the USDT per-firing benchmark for sites
 * of <dtrace/usdt.h> (a nop, which the note names, and a 5-byte nop after
 * it: bench/usdt_firing.sh): benchnop:tick, fired N times in a tight loop,
 * with its semaphore defined here, as a `dtrace -G` object defines it, and
 * not tested (as bench_usdt's probe has none).
 *
 *   bench_usdt_nop5 [N]
 *
 * Prints "bench_usdt_nop5 N firings T ns", T being the loop's own wall
 * time.
 */
#include <dtrace/usdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

DTRACE_USDT_DECLARE_SEMA(benchnop, tick);
volatile unsigned short benchnop_tick_semaphore
	__attribute__((section(".probes"), visibility("hidden")));

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		DTRACE_USDT_PROBE1(benchnop, tick, 8, i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("bench_usdt_nop5 %ld firings %lld ns\n", n,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
