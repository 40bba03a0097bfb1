/* SPDX-License-Identifier: MIT */
/*
 * For the tests of -x metrics (test/sh/metrics/): calls serve(KEY, LAT)
 * as its arguments say, "KEY:LAT:N" each (N calls), then creates the
 * file argv[1] (all calls made) and waits until the file argv[2] exists
 * (the test scraped what it wanted), at most a minute; then calls reset()
 * once, creates argv[1].reset and waits for argv[2].reset likewise.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) int serve(int key, int lat)
{
	__asm__ volatile("" ::: "memory");
	return key + lat;
}

__attribute__((noinline)) void reset(void)
{
	__asm__ volatile("" ::: "memory");
}

static void make_file(const char *path, const char *suffix)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	close(open(p, O_CREAT | O_WRONLY, 0644));
}

static void wait_file(const char *path, const char *suffix)
{
	struct timespec ts = { 0, 10 * 1000000 };
	char p[4096];

	snprintf(p, sizeof(p), "%s%s", path, suffix);
	for (int i = 0; i < 6000 && access(p, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	for (int a = 3; a < argc; a++) {
		int key, lat, n;
		if (sscanf(argv[a], "%d:%d:%d", &key, &lat, &n) != 3)
			return 2;
		for (int i = 0; i < n; i++)
			serve(key, lat);
	}
	make_file(argv[1], "");
	wait_file(argv[2], "");
	reset();
	make_file(argv[1], ".reset");
	wait_file(argv[2], ".reset");
	return 0;
}
