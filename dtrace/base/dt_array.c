/* SPDX-License-Identifier: MIT */
/*
 * dt_array.c: growing an array (dt_array.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_array.h"

#define DT_ARRAY_MIN		16	/* elements, */
#define DT_ARRAY_MIN_BYTES	256	/* and bytes, at the first growth */

int dt_array_resize(void *arrayp, size_t *cap, size_t need, size_t esize)
{
	void **array = arrayp;
	size_t ncap = *cap * 2, least = DT_ARRAY_MIN_BYTES / esize;
	void *p;

	if (need <= *cap)
		return 0;
	if (ncap < need)
		ncap = need;
	if (ncap < DT_ARRAY_MIN)
		ncap = DT_ARRAY_MIN;
	if (ncap < least)
		ncap = least;
	if (ncap > SIZE_MAX / esize || (p = realloc(*array, ncap * esize)) == NULL)
		return -ENOMEM;
	memset((char *)p + *cap * esize, 0, (ncap - *cap) * esize);
	*array = p;
	*cap = ncap;
	return 0;
}
