/* SPDX-License-Identifier: MIT */
/*
 * unit_check.h: what the unit tests share.  CHECK(cond) reports a condition
 * that does not hold, with its place, counts it in failures, and goes on;
 * a test exits 1 when failures is not 0 at the end (77: skipped).
 */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, \
			__LINE__, #cond); \
		failures++; \
	} \
} while (0)

#endif /* UNIT_CHECK_H */
