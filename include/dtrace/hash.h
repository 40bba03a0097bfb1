/* SPDX-License-Identifier: MIT */
/*
 * dtrace/hash.h: the one hash function and the one hash table of the
 * engine, the exec gate, dtprobed and the provider plugins, in one header
 * (C and C++).
 *
 * The function is FNV-1a on 64 bits, continued piece by piece over a key
 * of several parts: h = dtrace_hash_str(DTRACE_HASH_INIT, a);
 * h = dtrace_hash_u64(h, n)...  Nothing stores its values, shares them
 * with BPF code or lets them decide an order: a table mixes them again
 * before it takes a slot.
 *
 * The table holds elements of one size in its own slots: a pointer to the
 * caller's object (an index of objects that hold their keys), or a small
 * struct of key and value (a map).  Open addressing, linear probing, at
 * most half full, doubled when it would be more.  The caller hashes the key
 * it looks up and the table compares it with eq(element, key), only
 * against the elements of the same hash: each slot keeps 31 bits of its
 * element's hash, so that a growth hashes nothing again.  What the table
 * returns is the element in its slot, valid until the next insertion or
 * removal.  Iteration goes in slot order, which the hashes decide: an
 * order shown to a user comes from elsewhere.
 *
 * One allocation holds the elements, then a tag per slot: 0 for a free
 * slot, else DTRACE_HTAB_USED and 31 bits of the element's hash, mixed,
 * whose low bits are its home slot.  A lookup walks from the home slot to
 * the first free one, calling eq() only where the tags are equal.  Removal
 * moves back the elements after the hole that could no longer be reached
 * from their home slot (backward shift), so that no tombstone is left and
 * a lookup's walk ends at the first free slot.
 *
 * Memory comes from the functions the caller gives (the engine's arena, or
 * its allocator that ends dtrace when memory runs out), else from
 * calloc(), whose failure insertion reports.  An all-zero table with esize
 * and eq set is empty and owns nothing.
 */
#ifndef DTRACE_HASH_H
#define DTRACE_HASH_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DTRACE_HASH_INIT	0xcbf29ce484222325ull	/* FNV-1a's basis */
#define DTRACE_HASH_PRIME	0x100000001b3ull

static inline uint64_t dtrace_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * DTRACE_HASH_PRIME;
	return h;
}

static inline uint64_t dtrace_hash_str(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * DTRACE_HASH_PRIME;
	return h;
}

static inline uint64_t dtrace_hash_u64(uint64_t h, uint64_t v)
{
	return dtrace_hash_bytes(h, &v, sizeof(v));
}

/* Whether the element elem holds the key key. */
typedef bool dtrace_htab_eq_f(const void *elem, const void *key);

typedef struct dtrace_htab {
	char *elems;		/* cap elements of esize bytes, then */
	uint32_t *tags;		/* cap tags: DTRACE_HTAB_USED | hash bits */
	uint32_t cap, n;	/* cap: 0, or a power of two from 16 */
	uint32_t esize;
	dtrace_htab_eq_f *eq;
	/* memory: zeroed, NULL when there is none; NULL hooks: calloc, free */
	void *(*zalloc)(void *ctx, size_t size);
	void (*free)(void *ctx, void *p);
	void *ctx;
} dtrace_htab_t;

#define DTRACE_HTAB_USED	0x80000000u
#define DTRACE_HTAB_MIN		16u
#define DTRACE_HTAB_MAX		(1u << 30)

/* An empty table of elements of type, compared by eqf. */
#define DTRACE_HTAB_INIT(type, eqf)	{ NULL, NULL, 0, 0,		\
					  (uint32_t)sizeof(type),	\
					  (eqf), NULL, NULL, NULL }

static inline void dtrace_htab_init(dtrace_htab_t *t, size_t esize,
				    dtrace_htab_eq_f *eq)
{
	memset(t, 0, sizeof(*t));
	t->esize = (uint32_t)esize;
	t->eq = eq;
}

/* A hash made of 31 bits spread evenly, and the used bit: FNV-1a's low
 * bits see little of a key's last bytes, and the slot comes from them. */
static inline uint32_t dtrace_htab_tag(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	return (uint32_t)h | DTRACE_HTAB_USED;
}

static inline void *dtrace_htab_elem(const dtrace_htab_t *t, uint32_t i)
{
	return t->elems + (size_t)i * t->esize;
}

/* The slot of the element equal to key, or the free slot that ends its
 * walk (where it would go). */
static inline uint32_t dtrace_htab_slot(const dtrace_htab_t *t, uint32_t tag,
					const void *key)
{
	uint32_t mask = t->cap - 1;

	for (uint32_t i = tag & mask;; i = (i + 1) & mask)
		if (t->tags[i] == 0 ||
		    (t->tags[i] == tag && t->eq(dtrace_htab_elem(t, i), key)))
			return i;
}

static inline void dtrace_htab_release(const dtrace_htab_t *t, void *p)
{
	if (t->free)
		t->free(t->ctx, p);
	else if (t->zalloc == NULL)
		free(p);
}

/* Move the elements into a table of cap slots: 0 or -ENOMEM. */
static inline int dtrace_htab_resize(dtrace_htab_t *t, uint32_t cap)
{
	dtrace_htab_t bigger = *t;
	size_t esize = t->esize, size = (size_t)cap * (esize + sizeof(uint32_t));

	if (cap > DTRACE_HTAB_MAX)
		return -ENOMEM;
	bigger.cap = cap;
	bigger.elems = (char *)(t->zalloc ? t->zalloc(t->ctx, size)
					  : calloc(1, size));
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
		memcpy(dtrace_htab_elem(&bigger, j), dtrace_htab_elem(t, i),
		       esize);
	}
	if (t->elems != NULL)
		dtrace_htab_release(t, t->elems);
	*t = bigger;
	return 0;
}

/* Room for n elements without a growth: 0 or -ENOMEM. */
static inline int dtrace_htab_reserve(dtrace_htab_t *t, uint32_t n)
{
	uint32_t cap = t->cap ? t->cap : DTRACE_HTAB_MIN;

	while ((uint64_t)n * 2 > cap && cap <= DTRACE_HTAB_MAX)
		cap *= 2;
	return cap == t->cap ? 0 : dtrace_htab_resize(t, cap);
}

/* The element equal to key (hashed as h), or NULL. */
static inline void *dtrace_htab_find(const dtrace_htab_t *t, uint64_t h,
				     const void *key)
{
	if (t->n == 0)
		return NULL;
	uint32_t i = dtrace_htab_slot(t, dtrace_htab_tag(h), key);
	return t->tags[i] != 0 ? dtrace_htab_elem(t, i) : NULL;
}

/* The element equal to key, else a new one, all zero, for the caller to
 * fill with key (*added then true); NULL when out of memory. */
static inline void *dtrace_htab_insert(dtrace_htab_t *t, uint64_t h,
				       const void *key, bool *added)
{
	uint32_t tag = dtrace_htab_tag(h), i = 0, cap = t->cap;

	if (cap != 0) {
		i = dtrace_htab_slot(t, tag, key);
		if (t->tags[i] != 0) {
			if (added)
				*added = false;
			return dtrace_htab_elem(t, i);
		}
	}
	if (dtrace_htab_reserve(t, t->n + 1) < 0)
		return NULL;
	if (t->cap != cap)	/* grown: the free slot moved */
		i = dtrace_htab_slot(t, tag, key);
	t->tags[i] = tag;
	t->n++;
	if (added)
		*added = true;
	return memset(dtrace_htab_elem(t, i), 0, t->esize);
}

/* Whether slot j, whose home is home, lies on the walk from home to the
 * hole, so that it may fill the hole and still be found. */
static inline bool dtrace_htab_may_fill(uint32_t hole, uint32_t home,
					uint32_t j)
{
	return hole <= j ? home <= hole || home > j
			 : home <= hole && home > j;
}

/* Remove the element equal to key: true when there was one. */
static inline bool dtrace_htab_remove(dtrace_htab_t *t, uint64_t h,
				      const void *key)
{
	if (t->n == 0)
		return false;
	uint32_t mask = t->cap - 1;
	uint32_t hole = dtrace_htab_slot(t, dtrace_htab_tag(h), key);

	if (t->tags[hole] == 0)
		return false;
	for (uint32_t j = (hole + 1) & mask; t->tags[j] != 0;
	     j = (j + 1) & mask) {
		if (!dtrace_htab_may_fill(hole, t->tags[j] & mask, j))
			continue;
		t->tags[hole] = t->tags[j];
		memcpy(dtrace_htab_elem(t, hole), dtrace_htab_elem(t, j),
		       t->esize);
		hole = j;
	}
	t->tags[hole] = 0;
	t->n--;
	return true;
}

/* The elements, one a call from *pos (0 to start), NULL after the last:
 *   for (uint32_t i = 0; (e = dtrace_htab_next(t, &i)) != NULL; )
 * Nothing may be inserted or removed meanwhile. */
static inline void *dtrace_htab_next(const dtrace_htab_t *t, uint32_t *pos)
{
	for (; *pos < t->cap; (*pos)++)
		if (t->tags[*pos] != 0)
			return dtrace_htab_elem(t, (*pos)++);
	return NULL;
}

static inline uint32_t dtrace_htab_count(const dtrace_htab_t *t)
{
	return t->n;
}

/* Empty the table, keeping its memory. */
static inline void dtrace_htab_clear(dtrace_htab_t *t)
{
	if (t->cap != 0)
		memset(t->tags, 0, t->cap * sizeof(*t->tags));
	t->n = 0;
}

/* Free the table's memory (not what its elements point to): it is empty
 * again, and may be used again. */
static inline void dtrace_htab_fini(dtrace_htab_t *t)
{
	if (t->elems != NULL)
		dtrace_htab_release(t, t->elems);
	t->elems = NULL;
	t->tags = NULL;
	t->cap = t->n = 0;
}

#endif /* DTRACE_HASH_H */
