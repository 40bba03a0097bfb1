/* SPDX-License-Identifier: MIT */
/*
 * test_hash.c: the one hash function and hash table (dt_hash.c).
 *
 * The function is FNV-1a's 64 bits (the published values), the same
 * over a string and over its bytes, continued piece by piece.  The table,
 * as a map of integers (a struct per slot): 100,000 keys inserted, found,
 * inserted again (found, not added), half removed, the rest still found,
 * iteration visits each once, clear and fini leave it empty and usable.
 * Against a model under a hash that sends every key to the last 5 slots
 * (long clusters that wrap around the end): random insertions and
 * removals agree with the model at every step.  As an index of objects (pointers
 * to structs keyed by string).  Memory: through the caller's functions,
 * whose failure insertion reports with the table unchanged; reserve
 * makes room without a growth later.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_hash.h"
#include "unit_check.h"

typedef struct ent {
	uint64_t key, val;
} ent_t;

static bool ent_eq(const void *elem, const void *key)
{
	return ((const ent_t *)elem)->key == *(const uint64_t *)key;
}

static uint64_t key_hash(uint64_t k)
{
	return dt_hash_u64(DT_HASH_INIT, k);
}

static void check_function(void)
{
	CHECK(dt_hash_str(DT_HASH_INIT, "") == 0xcbf29ce484222325ull);
	CHECK(dt_hash_str(DT_HASH_INIT, "a") == 0xaf63dc4c8601ec8cull);
	CHECK(dt_hash_str(DT_HASH_INIT, "foobar") == 0x85944171f73967e8ull);
	CHECK(dt_hash_bytes(DT_HASH_INIT, "foobar", 6) ==
	      dt_hash_str(DT_HASH_INIT, "foobar"));
	CHECK(dt_hash_str(dt_hash_str(DT_HASH_INIT, "foo"), "bar") ==
	      dt_hash_str(DT_HASH_INIT, "foobar"));
	uint64_t v = 0x0123456789abcdefull;
	CHECK(dt_hash_u64(DT_HASH_INIT, v) ==
	      dt_hash_bytes(DT_HASH_INIT, &v, sizeof(v)));
}

#define NKEYS	100000

static void check_map(void)
{
	dt_htab_t t = DT_HTAB_INIT(ent_t, ent_eq);
	bool added;
	uint64_t k;

	k = 1;
	CHECK(dt_htab_find(&t, key_hash(k), &k) == NULL);
	CHECK(!dt_htab_remove(&t, key_hash(k), &k));
	for (k = 0; k < NKEYS; k++) {
		ent_t *e = dt_htab_insert(&t, key_hash(k * 7), &(uint64_t){ k * 7 },
					  &added);
		CHECK(e != NULL && added && e->key == 0 && e->val == 0);
		if (e != NULL)
			*e = (ent_t){ k * 7, k };
	}
	CHECK(dt_htab_count(&t) == NKEYS);
	CHECK((t.cap & (t.cap - 1)) == 0 && t.cap >= 2 * NKEYS);
	for (k = 0; k < NKEYS; k++) {
		uint64_t key = k * 7, miss = k * 7 + 3;
		ent_t *e = dt_htab_find(&t, key_hash(key), &key);
		CHECK(e != NULL && e->key == key && e->val == k);
		CHECK(dt_htab_find(&t, key_hash(miss), &miss) == NULL);
	}
	k = 21;
	ent_t *e = dt_htab_insert(&t, key_hash(k), &k, &added);
	CHECK(e != NULL && !added && e->val == 3);
	CHECK(dt_htab_count(&t) == NKEYS);

	for (k = 0; k < NKEYS; k += 2) {
		uint64_t key = k * 7;
		CHECK(dt_htab_remove(&t, key_hash(key), &key));
		CHECK(!dt_htab_remove(&t, key_hash(key), &key));
	}
	CHECK(dt_htab_count(&t) == NKEYS / 2);
	for (k = 0; k < NKEYS; k++) {
		uint64_t key = k * 7;
		e = dt_htab_find(&t, key_hash(key), &key);
		CHECK(k % 2 == 0 ? e == NULL : e != NULL && e->val == k);
	}

	char *seen = calloc(NKEYS, 1);
	uint32_t n = 0;
	for (uint32_t i = 0; (e = dt_htab_next(&t, &i)) != NULL; n++) {
		CHECK(e->val < NKEYS && e->val % 2 == 1 && !seen[e->val]);
		if (e->val < NKEYS)
			seen[e->val] = 1;
	}
	CHECK(n == NKEYS / 2);
	free(seen);

	uint32_t cap = t.cap;
	dt_htab_clear(&t);
	k = 7;
	CHECK(dt_htab_count(&t) == 0 && t.cap == cap);
	CHECK(dt_htab_find(&t, key_hash(k), &k) == NULL);
	uint32_t i = 0;
	CHECK(dt_htab_next(&t, &i) == NULL);
	dt_htab_fini(&t);
	CHECK(t.cap == 0 && t.elems == NULL);
	e = dt_htab_insert(&t, key_hash(k), &k, &added);
	CHECK(e != NULL && added);
	dt_htab_fini(&t);
}

/* Hashes whose home slots are the last 5 of a table of cap slots, found
 * by trying: every key of the model takes one (clusters that wrap). */
static uint64_t end_hashes[5];

static void find_end_hashes(dt_htab_t *t)
{
	uint64_t probe = UINT64_MAX;
	int found = 0;

	for (uint64_t h = 0; found < 5 && h < 1000000; h++) {
		ent_t *e = dt_htab_insert(t, h, &probe, NULL);
		uint32_t slot = (uint32_t)((char *)e - t->elems) / t->esize;

		e->key = probe;
		if (slot == t->cap - 1 - (uint32_t)found)
			end_hashes[found++] = h;
		dt_htab_remove(t, h, &probe);
	}
	CHECK(found == 5 && dt_htab_count(t) == 0);
}

static uint64_t bad_hash(uint64_t k)
{
	return end_hashes[k % 5];
}

#define MODEL_KEYS	64

static void check_model(void)
{
	dt_htab_t t;
	bool in[MODEL_KEYS] = { false };
	uint64_t val[MODEL_KEYS];
	unsigned seed = 12345;

	dt_htab_init(&t, sizeof(ent_t), ent_eq);
	CHECK(dt_htab_reserve(&t, MODEL_KEYS) == 0);
	uint32_t cap = t.cap;
	find_end_hashes(&t);
	for (int step = 0; step < 20000; step++) {
		seed = seed * 1103515245u + 12345u;
		uint64_t k = (seed >> 8) % MODEL_KEYS;
		bool add = (seed >> 20) % 3 != 0;

		if (add) {
			bool added;
			ent_t *e = dt_htab_insert(&t, bad_hash(k), &k, &added);
			CHECK(e != NULL && added == !in[k]);
			if (e == NULL)
				break;
			*e = (ent_t){ k, (uint64_t)step };
			in[k] = true;
			val[k] = (uint64_t)step;
		} else {
			CHECK(dt_htab_remove(&t, bad_hash(k), &k) == in[k]);
			in[k] = false;
		}
		uint32_t n = 0;
		for (uint64_t j = 0; j < MODEL_KEYS; j++) {
			ent_t *e = dt_htab_find(&t, bad_hash(j), &j);
			CHECK(in[j] ? e != NULL && e->val == val[j] : e == NULL);
			n += in[j];
		}
		CHECK(dt_htab_count(&t) == n);
	}
	CHECK(t.cap == cap);	/* reserved: never grown */
	dt_htab_fini(&t);
}

typedef struct obj {
	const char *name;
	int id;
} obj_t;

static bool obj_eq(const void *elem, const void *key)
{
	return strcmp((*(obj_t *const *)elem)->name, key) == 0;
}

static void check_index(void)
{
	static obj_t objs[] = { { "open", 1 }, { "close", 2 }, { "read", 3 },
				{ "", 4 } };
	dt_htab_t t = DT_HTAB_INIT(obj_t *, obj_eq);

	for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		obj_t **e = dt_htab_insert(&t, dt_hash_str(DT_HASH_INIT,
							   objs[i].name),
					   objs[i].name, NULL);
		CHECK(e != NULL);
		if (e != NULL)
			*e = &objs[i];
	}
	obj_t **e = dt_htab_find(&t, dt_hash_str(DT_HASH_INIT, "read"), "read");
	CHECK(e != NULL && *e == &objs[2]);
	e = dt_htab_find(&t, dt_hash_str(DT_HASH_INIT, ""), "");
	CHECK(e != NULL && (*e)->id == 4);
	CHECK(dt_htab_find(&t, dt_hash_str(DT_HASH_INIT, "write"), "write") ==
	      NULL);
	dt_htab_fini(&t);
}

/* An allocator that counts, and fails when told to. */
static struct { int allocs, frees; bool fail; } mem;

static void *count_zalloc(void *ctx, size_t size)
{
	CHECK(ctx == &mem);
	if (mem.fail)
		return NULL;
	mem.allocs++;
	return calloc(1, size);
}

static void count_free(void *ctx, void *p)
{
	CHECK(ctx == &mem);
	mem.frees++;
	free(p);
}

static bool insert_key(dt_htab_t *t, uint64_t k)
{
	ent_t *e = dt_htab_insert(t, key_hash(k), &k, NULL);

	if (e != NULL)
		e->key = k;
	return e != NULL;
}

static void check_memory(void)
{
	dt_htab_t t = DT_HTAB_INIT(ent_t, ent_eq);
	uint64_t k;

	t.zalloc = count_zalloc;
	t.free = count_free;
	t.ctx = &mem;
	CHECK(dt_htab_reserve(&t, 100) == 0 && t.cap >= 200);
	CHECK(mem.allocs == 1);
	uint32_t cap = t.cap;
	for (k = 0; k < 100; k++)
		CHECK(insert_key(&t, k));
	CHECK(t.cap == cap && mem.allocs == 1 && mem.frees == 0);

	mem.fail = true;
	for (k = 100; dt_htab_count(&t) * 2 < t.cap; k++)
		CHECK(insert_key(&t, k));
	uint32_t n = dt_htab_count(&t);
	CHECK(!insert_key(&t, k));
	CHECK(dt_htab_count(&t) == n && t.cap == cap);
	CHECK(dt_htab_find(&t, key_hash(k), &k) == NULL);
	k = 5;
	CHECK(dt_htab_find(&t, key_hash(k), &k) != NULL);
	CHECK(insert_key(&t, 6));	/* one already there needs no memory */

	mem.fail = false;
	dt_htab_fini(&t);
	CHECK(mem.allocs == 1 && mem.frees == 1);
}

int main(void)
{
	check_function();
	check_map();
	check_model();
	check_index();
	check_memory();
	return failures != 0;
}
