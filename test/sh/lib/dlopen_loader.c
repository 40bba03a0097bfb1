/* SPDX-License-Identifier: MIT */
/*
 * For the tests of probes made while tracing: calls work(i) 40 times, 50
 * ms apart (a session starts meanwhile, -p), then dlopen()s the library
 * argv[1] and, a second later (its probes are placed a few milliseconds
 * after the dlopen()), calls its lib_fn(i) 20 times, 50 ms apart; prints
 * the sum of what they returned, 990.
 *
 * With two more arguments, files, it waits for the first to exist before
 * the dlopen() (then calls work(0) five times, which tracing sees however
 * late it began) and for the second before the calls, instead of the
 * times: the test creates them when dtrace says it is ready and when it
 * placed the library's probes, however long a loaded machine makes that.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Wait for path to exist, up to a minute. */
static void wait_for(const char *path)
{
	struct timespec ts = { 0, 10 * 1000000 };

	for (int i = 0; i < 6000 && access(path, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

__attribute__((noinline)) int work(int i)
{
	__asm__ volatile("" ::: "memory");
	return i;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 50 * 1000000 }, second = { 1, 0 };
	bool paced = argc > 3;	/* by the test's files, not by time */
	int sum = 0;

	if (argc < 2)
		return 2;
	for (int i = 0; i < 40; i++) {
		sum += work(i);
		nanosleep(&ts, NULL);
	}
	if (paced) {
		wait_for(argv[2]);
		/* Tracing has begun: work() fires under it however late
		 * dtrace started (work(0) adds nothing to the sum). */
		for (int i = 0; i < 5; i++) {
			sum += work(0);
			nanosleep(&ts, NULL);
		}
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*f)(int) = (int (*)(int))dlsym(h, "lib_fn");
	if (paced)
		wait_for(argv[3]);
	else
		nanosleep(&second, NULL);
	for (int i = 0; i < 20; i++) {
		sum += f(i);
		nanosleep(&ts, NULL);
	}
	printf("%d\n", sum);
	return 0;
}
