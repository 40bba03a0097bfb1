/* SPDX-License-Identifier: MIT */
/*
 * For the tests of probes made while tracing: calls work(i) 40 times, 50
 * ms apart (a session starts meanwhile, -p), then dlopen()s the library
 * argv[1] and, a second later (its probes are placed a few milliseconds
 * after the dlopen()), calls its lib_fn(i) 20 times, 50 ms apart; prints
 * the sum of what they returned, 990.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) int work(int i)
{
	__asm__ volatile("" ::: "memory");
	return i;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 50 * 1000000 };
	int sum = 0;

	if (argc < 2)
		return 2;
	for (int i = 0; i < 40; i++) {
		sum += work(i);
		nanosleep(&ts, NULL);
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	if (h == NULL) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	int (*f)(int) = (int (*)(int))dlsym(h, "lib_fn");
	for (int i = 0; i < 40; i++) {
		if (i >= 20)
			sum += f(i - 20);
		nanosleep(&ts, NULL);
	}
	printf("%d\n", sum);
	return 0;
}
