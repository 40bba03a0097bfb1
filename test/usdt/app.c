/* SPDX-License-Identifier: MIT */
/* app.c: a program with myapp probes, for the -h/-G, dtprobed and tracing
 * tests.  Usage: app [loops [sleep_ms [fork|dlopen LIB]]]
 *   fork	the child fires fire(100..102), sleep_ms apart, and exits;
 *		with FILE, the fork waits until FILE exists
 *   dlopen	LIB is loaded first; each loop also calls its lib_func(i);
 *		it is closed after the loops
 *   wait	FILE: the first firing waits until FILE exists (a test's
 *		signal that the registration was seen)
 *   exec	PROG ARGS...: after the loops, the process execs PROG */
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "prov.h"

/* Neither inlined nor cloned: each probe has exactly one site (the tests
 * count them) in a function named fire. */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noclone))
#endif
__attribute__((noinline)) static int fire(int i)
{
	if (MYAPP_QUERY_START_ENABLED())
		printf("enabled\n");
	MYAPP_TICK(i);
	MYAPP_QUERY_START(i, "hello");
	MYAPP_NOARGS();
	return i;
}

int main(int argc, char **argv)
{
	int loops = argc > 1 ? atoi(argv[1]) : 1;
	int ms = argc > 2 ? atoi(argv[2]) : 0;
	void *h = NULL;

	if (argc > 4 && argv[3][0] == 'd') {
		h = dlopen(argv[4], RTLD_NOW);
		if (h == NULL) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
	}
	if (argc > 4 && argv[3][0] == 'f')
		while (access(argv[4], F_OK) != 0)
			usleep(1000);
	if (argc > 3 && argv[3][0] == 'f' && fork() == 0) {
		for (int i = 100; i < 103; i++) {
			usleep(ms * 1000);
			fire(i);
		}
		_exit(0);
	}
	if (argc > 4 && argv[3][0] == 'w')
		while (access(argv[4], F_OK) != 0)
			usleep(1000);
	int (*lib_func)(int) = NULL;
	if (h != NULL)
		*(void **)&lib_func = dlsym(h, "lib_func");
	for (int i = 0; i < loops; i++) {
		fire(i);
		if (lib_func != NULL)
			lib_func(i);
		usleep(ms * 1000);
	}
	if (h != NULL) {
		dlclose(h);
		/* live on long enough for a test to see the library's
		 * registration gone while the program's stays */
		usleep(10 * ms * 1000);
	}
	wait(NULL);
	if (argc > 4 && argv[3][0] == 'e') {
		execv(argv[4], argv + 4);
		perror(argv[4]);
		return 1;
	}
	return 0;
}
