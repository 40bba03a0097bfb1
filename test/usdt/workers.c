/* SPDX-License-Identifier: MIT */
/* workers.c: a program with the probe workers:::tick (its provider
 * workers.d, of its own, which no other test's session matches) that
 * forks workers at once, for the tests of registrations on fork.
 * Usage: workers N [FILE]
 * Forks N children as fast as it can; each fires tick(i) (i its number)
 * once and, with FILE, lives until FILE exists, then exits.  The parent
 * waits for them all. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "workers.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	const char *go = argc > 2 ? argv[2] : NULL;

	for (int i = 0; i < n; i++) {
		if (fork() != 0)
			continue;
		WORKERS_TICK(i);
		while (go != NULL && access(go, F_OK) != 0)
			usleep(10000);
		_exit(0);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
