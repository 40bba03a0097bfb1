/* SPDX-License-Identifier: MIT */
/*
 * path_swap: exchange two paths over and over, for the tests that play a
 * user who swaps a FIFO in where root's dtrace expects the file a process
 * maps (test/sh/hostile/hostile_fifo_swap.sh).
 *
 *   path_swap A B SECONDS
 *
 * renameat2(RENAME_EXCHANGE) swaps the two names in one step, so that
 * each name always exists and is, at any moment, either file: a reader
 * that looks at a name twice (stat, then open) sees the other file half
 * of the time.  Stops after SECONDS, or at the first error, which it
 * names; exits 0 when it swapped at least once.
 */
#define _GNU_SOURCE	/* renameat2, RENAME_EXCHANGE */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long swaps = 0;
	double end;

	if (argc != 4) {
		fprintf(stderr, "usage: path_swap A B SECONDS\n");
		return 2;
	}
	end = now() + atof(argv[3]);
	while (now() < end) {
		/* a batch between clock reads: the swaps are the point */
		for (int i = 0; i < 64; i++, swaps++)
			if (renameat2(AT_FDCWD, argv[1], AT_FDCWD, argv[2],
				      RENAME_EXCHANGE) != 0) {
				fprintf(stderr, "path_swap: %s <-> %s: %s\n",
					argv[1], argv[2], strerror(errno));
				return 1;
			}
	}
	return swaps > 0 ? 0 : 1;
}
