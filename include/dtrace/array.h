/* SPDX-License-Identifier: MIT */
/*
 * dtrace/array.h: the growable array of the engine, dtprobed and the
 * provider plugins, in one header (C and C++).
 *
 * An array is a pointer, a count and a capacity of the caller's own, of
 * any integer types that hold twice the largest count.
 * DTRACE_ARRAY_NEED() makes room for need elements in all,
 * DTRACE_ARRAY_ROOM() for one more, growing the capacity to twice what it
 * was (at least 16 elements and 256 bytes), the new elements zero:
 *
 *	if (DTRACE_ARRAY_ROOM(v, n, cap) < 0)
 *		return -ENOMEM;
 *	v[n++] = x;
 *
 * Both are 0, or -ENOMEM with the array and its capacity as they were.
 * Pointers into the array are valid until it grows.
 */
#ifndef DTRACE_ARRAY_H
#define DTRACE_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DTRACE_ARRAY_MIN	16	/* elements, */
#define DTRACE_ARRAY_MIN_BYTES	256	/* and bytes, at the first growth */

/* Room for need elements of esize bytes in *arrayp (void **), of *cap
 * now: 0 or -ENOMEM. */
static inline int dtrace_array_resize(void *arrayp, size_t *cap, size_t need,
				      size_t esize)
{
	void **array = (void **)arrayp;
	size_t ncap = *cap * 2, least = DTRACE_ARRAY_MIN_BYTES / esize;
	void *p;

	if (need <= *cap)
		return 0;
	if (ncap < need)
		ncap = need;
	if (ncap < DTRACE_ARRAY_MIN)
		ncap = DTRACE_ARRAY_MIN;
	if (ncap < least)
		ncap = least;
	if (ncap > SIZE_MAX / esize || (p = realloc(*array, ncap * esize)) == NULL)
		return -ENOMEM;
	memset((char *)p + *cap * esize, 0, (ncap - *cap) * esize);
	*array = p;
	*cap = ncap;
	return 0;
}

#define DTRACE_ARRAY_NEED(arr, cap, need) __extension__ ({		\
	void *dtrace_arr_ = (arr);					\
	size_t dtrace_cap_ = (size_t)(cap);				\
	int dtrace_rc_ = dtrace_array_resize(&dtrace_arr_, &dtrace_cap_, \
					     (size_t)(need),		\
					     sizeof(*(arr)));		\
	(arr) = (__typeof__(arr))dtrace_arr_;				\
	(cap) = (__typeof__(cap))dtrace_cap_;				\
	dtrace_rc_;							\
})

#define DTRACE_ARRAY_ROOM(arr, n, cap) \
	DTRACE_ARRAY_NEED(arr, cap, (size_t)(n) + 1)

#endif /* DTRACE_ARRAY_H */
