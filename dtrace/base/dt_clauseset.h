/* SPDX-License-Identifier: MIT */
/*
 * dt_clauseset.h: a set of clauses, by clause id (bit c of word c / 64).
 *
 * A probe's clauses, a program's and an overlay entry's are such sets.
 * There is no limit on the number of clauses: the words grow as bits are
 * added, and an empty set owns no memory (all zero: {NULL, 0}).
 */
#ifndef DT_CLAUSESET_H
#define DT_CLAUSESET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dt_clauseset {
	uint64_t *w;		/* words, NULL when nw is 0 */
	uint32_t nw;
} dt_clauseset_t;

/* Words a set of nclauses clauses takes, at least 1. */
static inline uint32_t dt_clause_words(int nclauses)
{
	return nclauses <= 64 ? 1 : (uint32_t)(nclauses + 63) / 64;
}

static inline uint64_t dt_cs_word(const dt_clauseset_t *s, uint32_t i)
{
	return i < s->nw ? s->w[i] : 0;
}

static inline bool dt_cs_has(const dt_clauseset_t *s, int c)
{
	return (dt_cs_word(s, (uint32_t)c / 64) >> (c % 64)) & 1;
}

void dt_cs_add(dt_clauseset_t *s, int c);
bool dt_cs_empty(const dt_clauseset_t *s);
void dt_cs_or(dt_clauseset_t *d, const dt_clauseset_t *s);
void dt_cs_remove_all(dt_clauseset_t *d, const dt_clauseset_t *s);
bool dt_cs_subset(const dt_clauseset_t *a, const dt_clauseset_t *b);
void dt_cs_first(dt_clauseset_t *s, int n);
void dt_cs_copy(dt_clauseset_t *d, const dt_clauseset_t *s);
void dt_cs_free(dt_clauseset_t *s);

#endif /* DT_CLAUSESET_H */
