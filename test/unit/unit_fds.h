/* SPDX-License-Identifier: MIT */
/*
 * unit_fds.h: how many descriptors the test holds open, for tests that
 * check that what they exercise keeps none.
 */
#ifndef UNIT_FDS_H
#define UNIT_FDS_H

#include <stdio.h>
#include <unistd.h>

static inline int unit_open_fds(void)
{
	char path[64];
	int n = 0;

	for (int fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n += access(path, F_OK) == 0;
	}
	return n;
}

#endif /* UNIT_FDS_H */
