/* SPDX-License-Identifier: MIT */
/* Calls clock_gettime(), which libc serves from the vDSO, for about a
 * second: a profile of it lands in the vDSO most of the time. */
#include <stdio.h>
#include <time.h>

int main(void)
{
	struct timespec start, now;
	unsigned long calls = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		clock_gettime(CLOCK_MONOTONIC, &now);
		calls++;
	} while (now.tv_sec - start.tv_sec < 1 ||
		 (now.tv_sec - start.tv_sec == 1 && now.tv_nsec < start.tv_nsec));
	printf("%s\n", calls > 0 ? "done" : "none");
	return 0;
}
