/* SPDX-License-Identifier: MIT */
/*
 * test_array.c: the one growable array (<dtrace/array.h>, dt_array.h).
 *
 * Elements pushed one at a time, with counts and capacities of three
 * integer types, keep their values; the capacity doubles and starts at 16
 * elements and 256 bytes at least; the elements past the count are zero;
 * room already there changes nothing; a need that cannot be met is
 * -ENOMEM with the array and its capacity as they were.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "dt_array.h"
#include "unit_check.h"

static void check_push(void)
{
	uint64_t *v = NULL;
	int n = 0, cap = 0;

	for (int i = 0; i < 10000; i++) {
		int oldcap = cap;

		CHECK(DT_ARRAY_ROOM(v, n, cap) == 0);
		CHECK(cap > n && (oldcap == cap || oldcap == 0 ||
				  cap == 2 * oldcap));
		CHECK(v[n] == 0);
		v[n++] = (uint64_t)i * 3;
	}
	for (int i = 0; i < n; i++)
		CHECK(v[i] == (uint64_t)i * 3);
	for (int i = n; i < cap; i++)
		CHECK(v[i] == 0);
	free(v);
}

static void check_first(void)
{
	char *bytes = NULL;
	size_t nb = 0;
	struct big { char b[100]; } *big = NULL;
	uint32_t nbig = 0;

	CHECK(DT_ARRAY_ROOM(bytes, 0, nb) == 0 && nb == 256);
	CHECK(DT_ARRAY_ROOM(big, 0, nbig) == 0 && nbig == 16);
	char *before = bytes;
	CHECK(DT_ARRAY_NEED(bytes, nb, 200) == 0 && nb == 256 &&
	      bytes == before);
	CHECK(DT_ARRAY_NEED(bytes, nb, 1000) == 0 && nb == 1000);
	CHECK(DT_ARRAY_NEED(bytes, nb, 1001) == 0 && nb == 2000);
	free(bytes);
	free(big);
}

static void check_nomem(void)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	CHECK(DT_ARRAY_ROOM(v, 10, cap) == 0);
	uint64_t *before = v;
	size_t oldcap = cap;
	v[3] = 42;
	CHECK(DT_ARRAY_NEED(v, cap, SIZE_MAX / 4) == -ENOMEM);
	CHECK(v == before && cap == oldcap && v[3] == 42);
	free(v);
}

int main(void)
{
	check_push();
	check_first();
	check_nomem();
	return failures != 0;
}
