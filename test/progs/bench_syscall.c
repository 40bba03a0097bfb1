/* SPDX-License-Identifier: MIT */
/*
 * bench_syscall.c: the target of bench/syscall.sh and of the kernel
 * benchmarks of the test virtual machine.
 *
 *   bench_syscall [N]
 *
 * Calls getppid() N times (default 1,000,000) through syscall(2), so that
 * no C library caches it, and prints "bench_syscall N calls T ns", T the
 * loop's own wall time (CLOCK_MONOTONIC): start-up and attachment are not
 * counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("bench_syscall %ld calls %lld ns\n", n,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
