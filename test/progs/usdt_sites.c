/* SPDX-License-Identifier: MIT */
/*
 * usdt_sites.c: probes made by <dtrace/usdt.h> itself (a nop and a 5-byte
 * nop per site), for the tests of where the usdt provider places a probe
 * and of what it then reads.  The semaphores are defined here, as a
 * `dtrace -G` object would define them.
 *
 *   usdt_sites N [MS [fork | wait FILE]]
 *
 * Fires sites:tick(i, counter) N times, MS milliseconds apart (default 0),
 * with counter, a global that the site reads from memory relative to %rip,
 * equal to 3 * i; with "fork", a child does the same after the parent;
 * with "wait", only once FILE exists.
 * Each process prints "done PID" when it is through.
 */
#include <dtrace/usdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

DTRACE_USDT_DECLARE_SEMA(sites, tick);
volatile unsigned short sites_tick_semaphore
	__attribute__((section(".probes"), visibility("hidden")));

int counter;

__attribute__((noinline)) static void fire(long i)
{
	counter = (int)(3 * i);
	__asm__ __volatile__("" ::: "memory");
	DTRACE_USDT_PROBE2(sites, tick, 8, i, -4, counter);
}

static void run(long n, int ms)
{
	for (long i = 0; i < n; i++) {
		fire(i);
		if (ms > 0)
			usleep(ms * 1000);
	}
	printf("done %d\n", (int)getpid());
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	int ms = argc > 2 ? atoi(argv[2]) : 0;

	if (argc > 4 && strcmp(argv[3], "wait") == 0)
		while (access(argv[4], F_OK) != 0)
			usleep(1000);
	run(n, ms);
	if (argc > 3 && strcmp(argv[3], "fork") == 0 && fork() == 0) {
		run(n, ms);
		_exit(0);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
