/* SPDX-License-Identifier: MIT */
/*
 * dt_hash.h: the one hash function and the one hash table of the engine,
 * the exec gate and dtprobed (dt_hash.c; also in libdtcommon.a).
 *
 * The function is FNV-1a on 64 bits, continued piece by piece over a key
 * of several parts: h = dt_hash_str(DT_HASH_INIT, a); h = dt_hash_u64(h,
 * n)...  Nothing stores its values, shares them with BPF code or lets
 * them decide an order: a table mixes them again before it takes a slot.
 *
 * The table holds elements of one size in its own slots: a pointer to the
 * caller's object (an index of objects that hold their keys: the probes,
 * the loader model's files), or a small struct of key and value (a map).
 * Open addressing, linear probing, at most half full, doubled when it
 * would be more.  The caller hashes the key it looks up and the table
 * compares it with eq(element, key), only against the elements of the
 * same hash: each slot keeps 31 bits of its element's hash, so that a
 * growth hashes nothing again.  What the table returns is the element in
 * its slot, valid until the next insertion or removal.  Iteration goes in
 * slot order, which the hashes decide: an order shown to a user comes
 * from elsewhere (a PRID, an array).
 *
 * Memory comes from the functions the caller gives (an arena; the
 * engine's, which ends dtrace when memory runs out: dt_htab_nofail() in
 * dt_impl.h), else from calloc(), whose failure insertion reports.  An
 * all-zero table with esize and eq set is empty and owns nothing.
 */
#ifndef DT_HASH_H
#define DT_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DT_HASH_INIT	0xcbf29ce484222325ull	/* FNV-1a's offset basis */
#define DT_HASH_PRIME	0x100000001b3ull

static inline uint64_t dt_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * DT_HASH_PRIME;
	return h;
}

static inline uint64_t dt_hash_str(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * DT_HASH_PRIME;
	return h;
}

static inline uint64_t dt_hash_u64(uint64_t h, uint64_t v)
{
	return dt_hash_bytes(h, &v, sizeof(v));
}

/* Whether the element elem holds the key key. */
typedef bool dt_htab_eq_f(const void *elem, const void *key);

typedef struct dt_htab {
	char *elems;		/* cap elements of esize bytes, then */
	uint32_t *tags;		/* cap tags: DT_HTAB_USED | hash bits; 0 free */
	uint32_t cap, n;	/* cap: 0, or a power of two from 16 */
	uint32_t esize;
	dt_htab_eq_f *eq;
	/* memory: zeroed, NULL when there is none; NULL hooks: calloc, free */
	void *(*zalloc)(void *ctx, size_t size);
	void (*free)(void *ctx, void *p);
	void *ctx;
} dt_htab_t;

/* An empty table of elements of type, compared by eq. */
#define DT_HTAB_INIT(type, eqf)	{ .esize = sizeof(type), .eq = (eqf) }

void dt_htab_init(dt_htab_t *t, size_t esize, dt_htab_eq_f *eq);

/* The element equal to key (hashed as h), or NULL. */
void *dt_htab_find(const dt_htab_t *t, uint64_t h, const void *key);

/* The element equal to key, else a new one, all zero, for the caller to
 * fill with key (*added then true); NULL when out of memory. */
void *dt_htab_insert(dt_htab_t *t, uint64_t h, const void *key, bool *added);

/* Remove the element equal to key: true when there was one. */
bool dt_htab_remove(dt_htab_t *t, uint64_t h, const void *key);

/* Room for n elements without a growth: 0 or -ENOMEM. */
int dt_htab_reserve(dt_htab_t *t, uint32_t n);

/* The elements, one a call from *pos (0 to start), NULL after the last:
 *   for (uint32_t i = 0; (e = dt_htab_next(t, &i)) != NULL; )
 * Nothing may be inserted or removed meanwhile. */
void *dt_htab_next(const dt_htab_t *t, uint32_t *pos);

static inline uint32_t dt_htab_count(const dt_htab_t *t)
{
	return t->n;
}

/* Empty the table, keeping its memory. */
void dt_htab_clear(dt_htab_t *t);

/* Free the table's memory (not what its elements point to): it is empty
 * again, and may be used again. */
void dt_htab_fini(dt_htab_t *t);

#endif /* DT_HASH_H */
