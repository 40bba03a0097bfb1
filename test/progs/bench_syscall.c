/* SPDX-License-Identifier: MIT */
/*
 * bench_syscall.c: the target of bench/syscall.sh and of the kernel
 * benchmarks of the test virtual machine.
 *
 *   bench_syscall [N]
 *
 * Calls getppid() N times (default 1,000,000) through syscall(2), so that
 * no C library caches it, and prints "bench_syscall N calls T ns", T the
 * CPU time the loop's thread used (CLOCK_THREAD_CPUTIME_ID: a probe's
 * program runs in the calling thread, and on a busy machine the wall
 * time would also count the time others ran); start-up and attachment
 * are not counted.
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

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	printf("bench_syscall %ld calls %lld ns\n", n,
	       (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
