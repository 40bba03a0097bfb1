/* SPDX-License-Identifier: MIT */
/*
 * dt_clauseset.c: sets of clauses (dt_clauseset.h).
 */
#include <stdlib.h>
#include <string.h>

#include "dt_clauseset.h"
#include "dt_impl.h"

/* Room for word i at least, the new words zero. */
static void cs_grow(dt_clauseset_t *s, uint32_t i)
{
	if (i < s->nw)
		return;
	s->w = dt_realloc(s->w, (i + 1) * sizeof(*s->w));
	memset(s->w + s->nw, 0, (i + 1 - s->nw) * sizeof(*s->w));
	s->nw = i + 1;
}

void dt_cs_add(dt_clauseset_t *s, int c)
{
	cs_grow(s, (uint32_t)c / 64);
	s->w[c / 64] |= 1ull << (c % 64);
}

bool dt_cs_empty(const dt_clauseset_t *s)
{
	for (uint32_t i = 0; i < s->nw; i++)
		if (s->w[i] != 0)
			return false;
	return true;
}

void dt_cs_or(dt_clauseset_t *d, const dt_clauseset_t *s)
{
	if (s->nw > 0)
		cs_grow(d, s->nw - 1);
	for (uint32_t i = 0; i < s->nw; i++)
		d->w[i] |= s->w[i];
}

/* d minus the clauses of s. */
void dt_cs_remove_all(dt_clauseset_t *d, const dt_clauseset_t *s)
{
	for (uint32_t i = 0; i < d->nw && i < s->nw; i++)
		d->w[i] &= ~s->w[i];
}

/* Whether every clause of a is in b. */
bool dt_cs_subset(const dt_clauseset_t *a, const dt_clauseset_t *b)
{
	for (uint32_t i = 0; i < a->nw; i++)
		if (a->w[i] & ~dt_cs_word(b, i))
			return false;
	return true;
}

/* s = clauses 0 .. n - 1. */
void dt_cs_first(dt_clauseset_t *s, int n)
{
	for (int c = 0; c < n; c++)
		dt_cs_add(s, c);
}

void dt_cs_copy(dt_clauseset_t *d, const dt_clauseset_t *s)
{
	dt_cs_free(d);
	dt_cs_or(d, s);
}

void dt_cs_free(dt_clauseset_t *s)
{
	free(s->w);
	s->w = NULL;
	s->nw = 0;
}
