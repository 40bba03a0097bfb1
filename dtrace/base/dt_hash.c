/* SPDX-License-Identifier: MIT */
/*
 * dt_hash.c: the hash table (dt_hash.h).
 *
 * One allocation holds the elements, then a tag per slot: 0 for a free
 * slot, else DT_HTAB_USED and 31 bits of the element's hash, mixed, whose
 * low bits are its home slot.  A lookup walks from the home slot to the
 * first free one, calling eq() only where the tags are equal.  Removal
 * moves back the elements after the hole that may then be reached from
 * their home slot no more (backward shift), so that no tombstone is left
 * and a lookup's walk ends at the first free slot.  Never more than half
 * full, so a walk is short and always ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_hash.h"

#define DT_HTAB_USED	0x80000000u
#define DT_HTAB_MIN	16u
#define DT_HTAB_MAX	(1u << 30)

/* A hash made of 31 bits spread evenly, and the used bit: FNV-1a's low
 * bits see little of a key's last bytes, and the slot comes from them. */
static uint32_t htab_tag(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return (uint32_t)h | DT_HTAB_USED;
}

static void *htab_elem(const dt_htab_t *t, uint32_t i)
{
	return t->elems + (size_t)i * t->esize;
}

static void *htab_zalloc(const dt_htab_t *t, size_t size)
{
	return t->zalloc ? t->zalloc(t->ctx, size) : calloc(1, size);
}

static void htab_free(const dt_htab_t *t, void *p)
{
	if (t->free)
		t->free(t->ctx, p);
	else if (t->zalloc == NULL)
		free(p);
}

void dt_htab_init(dt_htab_t *t, size_t esize, dt_htab_eq_f *eq)
{
	*t = (dt_htab_t){ .esize = (uint32_t)esize, .eq = eq };
}

/* The slot of the element equal to key, or the free slot that ends its
 * walk (where it would go). */
static uint32_t htab_slot(const dt_htab_t *t, uint32_t tag, const void *key)
{
	uint32_t mask = t->cap - 1;

	for (uint32_t i = tag & mask;; i = (i + 1) & mask)
		if (t->tags[i] == 0 ||
		    (t->tags[i] == tag && t->eq(htab_elem(t, i), key)))
			return i;
}

/* Move the elements into a table of cap slots. */
static int htab_resize(dt_htab_t *t, uint32_t cap)
{
	dt_htab_t bigger = *t;
	size_t esize = t->esize;

	if (cap > DT_HTAB_MAX)
		return -ENOMEM;
	bigger.cap = cap;
	bigger.elems = htab_zalloc(t, (size_t)cap * (esize + sizeof(uint32_t)));
	if (bigger.elems == NULL)
		return -ENOMEM;
	bigger.tags = (uint32_t *)(void *)(bigger.elems + (size_t)cap * esize);
	for (uint32_t i = 0; i < t->cap; i++) {
		uint32_t tag = t->tags[i], j = tag & (cap - 1);

		if (tag == 0)
			continue;
		while (bigger.tags[j] != 0)
			j = (j + 1) & (cap - 1);
		bigger.tags[j] = tag;
		memcpy(htab_elem(&bigger, j), htab_elem(t, i), esize);
	}
	if (t->elems != NULL)
		htab_free(t, t->elems);
	*t = bigger;
	return 0;
}

int dt_htab_reserve(dt_htab_t *t, uint32_t n)
{
	uint32_t cap = t->cap ? t->cap : DT_HTAB_MIN;

	while ((uint64_t)n * 2 > cap && cap <= DT_HTAB_MAX)
		cap *= 2;
	return cap == t->cap ? 0 : htab_resize(t, cap);
}

void *dt_htab_find(const dt_htab_t *t, uint64_t h, const void *key)
{
	if (t->n == 0)
		return NULL;
	uint32_t i = htab_slot(t, htab_tag(h), key);
	return t->tags[i] != 0 ? htab_elem(t, i) : NULL;
}

void *dt_htab_insert(dt_htab_t *t, uint64_t h, const void *key, bool *added)
{
	uint32_t tag = htab_tag(h), i = 0;

	if (t->cap != 0) {
		i = htab_slot(t, tag, key);
		if (t->tags[i] != 0) {
			if (added)
				*added = false;
			return htab_elem(t, i);
		}
	}
	uint32_t cap = t->cap;
	if (dt_htab_reserve(t, t->n + 1) < 0)
		return NULL;
	if (t->cap != cap)	/* grown: the free slot moved */
		i = htab_slot(t, tag, key);
	t->tags[i] = tag;
	t->n++;
	if (added)
		*added = true;
	return memset(htab_elem(t, i), 0, t->esize);
}

/* Whether slot j, whose home is home, lies on the walk from home to the
 * hole, so that it may fill the hole and still be found. */
static bool htab_may_fill(uint32_t hole, uint32_t home, uint32_t j)
{
	return hole <= j ? home <= hole || home > j
			 : home <= hole && home > j;
}

bool dt_htab_remove(dt_htab_t *t, uint64_t h, const void *key)
{
	if (t->n == 0)
		return false;
	uint32_t mask = t->cap - 1, hole = htab_slot(t, htab_tag(h), key);

	if (t->tags[hole] == 0)
		return false;
	for (uint32_t j = (hole + 1) & mask; t->tags[j] != 0; j = (j + 1) & mask) {
		if (!htab_may_fill(hole, t->tags[j] & mask, j))
			continue;
		t->tags[hole] = t->tags[j];
		memcpy(htab_elem(t, hole), htab_elem(t, j), t->esize);
		hole = j;
	}
	t->tags[hole] = 0;
	t->n--;
	return true;
}

void *dt_htab_next(const dt_htab_t *t, uint32_t *pos)
{
	for (; *pos < t->cap; (*pos)++)
		if (t->tags[*pos] != 0)
			return htab_elem(t, (*pos)++);
	return NULL;
}

void dt_htab_clear(dt_htab_t *t)
{
	if (t->cap != 0)
		memset(t->tags, 0, t->cap * sizeof(*t->tags));
	t->n = 0;
}

void dt_htab_fini(dt_htab_t *t)
{
	if (t->elems != NULL)
		htab_free(t, t->elems);
	t->elems = NULL;
	t->tags = NULL;
	t->cap = t->n = 0;
}
