/* SPDX-License-Identifier: MIT */
/*
 * dt_array.h: the one growable array of the engine, the exec gate and
 * dtprobed (dt_array.c; also in libdtcommon.a).
 *
 * An array is a pointer, a count and a capacity of the caller's own, of
 * any integer types that hold twice the largest count.  DT_ARRAY_NEED()
 * makes room for need elements in all, DT_ARRAY_ROOM() for one more,
 * growing the capacity to twice what it was (at least 16 elements and
 * 256 bytes), the new elements zero:
 *
 *	if (DT_ARRAY_ROOM(v, n, cap) < 0)
 *		return -ENOMEM;
 *	v[n++] = x;
 *
 * Both are 0, or -ENOMEM with the array and its capacity as they were.
 * Pointers into the array are valid until it grows.  The engine's
 * dt_array_room() (dt_impl.h) never fails: dtrace ends when memory does.
 */
#ifndef DT_ARRAY_H
#define DT_ARRAY_H

#include <stddef.h>

/* Room for need elements of esize bytes in *arrayp (void **), of *cap
 * now: 0 or -ENOMEM. */
int dt_array_resize(void *arrayp, size_t *cap, size_t need, size_t esize);

#define DT_ARRAY_NEED(arr, cap, need) __extension__ ({			\
	void *dt_arr_ = (arr);						\
	size_t dt_cap_ = (size_t)(cap);					\
	int dt_rc_ = dt_array_resize(&dt_arr_, &dt_cap_, (size_t)(need), \
				     sizeof(*(arr)));			\
	(arr) = dt_arr_;						\
	(cap) = (__typeof__(cap))dt_cap_;				\
	dt_rc_;								\
})

#define DT_ARRAY_ROOM(arr, n, cap)	DT_ARRAY_NEED(arr, cap, (size_t)(n) + 1)

#endif /* DT_ARRAY_H */
