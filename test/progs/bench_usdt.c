/* SPDX-License-Identifier: MIT */
/*
 * bench_usdt.c: the target of the USDT per-firing benchmark
 * (bench/usdt_firing.sh): a <sys/sdt.h> probe without semaphore,
 * bench:tick, fired N times in a tight loop.
 *
 *   bench_usdt [N]
 *
 * Prints "bench_usdt N firings T ns", T being the loop's own wall time.
 * (The semaphore-guarded variant is bench_usdt_sem.c: <sys/sdt.h> decides
 * per compilation unit whether probes carry semaphores.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		STAP_PROBE1(bench, tick, i);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("bench_usdt %ld firings %lld ns\n", n,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
