/* SPDX-License-Identifier: MIT */
/*
 * bench_usdt_sem.c: the target of the semaphore-guarded USDT benchmark
 * (bench/usdt_firing.sh): the probe bench_sem:tick carries a semaphore
 * (bench_sem_tick_semaphore, in .probes as <sys/sdt.h> expects), and the
 * loop fires it only while the semaphore is raised, as code built with
 * systemtap's dtrace -h does.
 *
 *   bench_usdt_sem [N]
 *
 * Prints "bench_usdt_sem N firings T ns (guarded code ran K times)".
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

__extension__ unsigned short bench_sem_tick_semaphore
	__attribute__((unused)) __attribute__((section(".probes")));

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
	struct timespec t0, t1;
	long ran = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		if (__builtin_expect(bench_sem_tick_semaphore, 0)) {
			ran++;
			STAP_PROBE1(bench_sem, tick, i);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("bench_usdt_sem %ld firings %lld ns (guarded code ran %ld "
	       "times)\n", n,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec), ran);
	return 0;
}
