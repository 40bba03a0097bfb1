/* SPDX-License-Identifier: MIT */
/*
 * test/progs/demo.c: a toy request server for the demo (make demo) and for
 * tests that want a process with a few plain functions to trace.
 *
 * For about three seconds (or argv[1] seconds), it handles "requests": each
 * has an id and a kind; handle_request() dispatches to lookup() or update(),
 * which "work" for a time that depends on their arguments (a few hundred
 * microseconds to a few milliseconds), and returns a status.  The functions
 * are noinline and external so that pid probes find them by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Sleep for us microseconds: the request's "latency". */
static void work(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) int lookup(int key)
{
	work(100 + (key % 7) * 150);
	return key % 13 == 0 ? -1 : 0;	/* some lookups miss */
}

__attribute__((noinline)) int update(int key, int value)
{
	work(500 + ((key + value) % 5) * 400);
	return 0;
}

__attribute__((noinline)) int handle_request(int id, int kind)
{
	if (kind == 0)
		return update(id, id * 3);
	return lookup(id);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	double end = now() + seconds;
	int id = 0, errors = 0;

	while (now() < end) {
		id++;
		/* one update for every three lookups */
		if (handle_request(id, id % 4 == 0 ? 0 : 1) != 0)
			errors++;
	}
	printf("demo: %d requests, %d errors\n", id, errors);
	return 0;
}
