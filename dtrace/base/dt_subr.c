/* SPDX-License-Identifier: MIT */
/*
 * dt_subr.c: small utilities of the engine: allocation that cannot fail
 * silently, error and warning messages, D's glob matching, clocks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dt_impl.h"

/* Out of memory in the consumer is not something dtrace can trace through:
 * say so and stop, rather than let every caller grow an error path. */
static _Noreturn void dt_nomem(void)
{
	fputs("dtrace: out of memory\n", stderr);
	exit(1);
}

void *dt_zalloc(size_t size)
{
	void *p = calloc(1, size ? size : 1);
	if (p == NULL)
		dt_nomem();
	return p;
}

void *dt_realloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (q == NULL)
		dt_nomem();
	return q;
}

char *dt_strdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (p == NULL)
		dt_nomem();
	return p;
}

void dt_warn(dtrace_hdl_t *dtp, const char *fmt, ...)
{
	va_list ap;

	(void)dtp;
	fputs("dtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void dt_set_error(dtrace_hdl_t *dtp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dtp->errmsg, sizeof(dtp->errmsg), fmt, ap);
	va_end(ap);
}

/* Match a bracket expression at *pp against c; advance *pp past it.
 * Returns 1 on a match, 0 on none, -1 if the bracket is not closed. */
/* ---- dt_strmap_t ---- */

struct dt_strmap_ent {
	const char *name;	/* NULL: free slot */
	uint32_t tag;
	void *v;
};

static uint64_t strmap_hash(uint32_t tag, const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull ^ tag;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* The slot of (tag, name), or the free slot where it would go. */
static struct dt_strmap_ent *strmap_slot(const dt_strmap_t *m, uint32_t tag,
					 const char *name)
{
	uint32_t mask = m->size - 1;
	uint32_t i = (uint32_t)strmap_hash(tag, name) & mask;

	while (m->ents[i].name != NULL &&
	       (m->ents[i].tag != tag || strcmp(m->ents[i].name, name) != 0))
		i = (i + 1) & mask;
	return &m->ents[i];
}

static void strmap_grow(dt_strmap_t *m)
{
	dt_strmap_t bigger = { .size = m->size ? m->size * 2 : 64,
			       .pcb = m->pcb };
	size_t bytes = sizeof(*bigger.ents) * bigger.size;

	bigger.ents = m->pcb ? dt_pcb_alloc(m->pcb, bytes) : dt_zalloc(bytes);
	for (uint32_t i = 0; i < m->size; i++)
		if (m->ents[i].name != NULL)
			*strmap_slot(&bigger, m->ents[i].tag,
				     m->ents[i].name) = m->ents[i];
	bigger.n = m->n;
	if (m->pcb == NULL)
		free(m->ents);
	*m = bigger;
}

void *dt_strmap_get(const dt_strmap_t *m, uint32_t tag, const char *name)
{
	return m->size == 0 ? NULL : strmap_slot(m, tag, name)->v;
}

void dt_strmap_put(dt_strmap_t *m, uint32_t tag, const char *name, void *v)
{
	if (2 * (m->n + 1) > m->size)
		strmap_grow(m);
	struct dt_strmap_ent *e = strmap_slot(m, tag, name);
	if (e->name == NULL)
		m->n++;
	*e = (struct dt_strmap_ent){ .name = name, .tag = tag, .v = v };
}

void dt_strmap_fini(dt_strmap_t *m)
{
	if (m->pcb == NULL)
		free(m->ents);
	m->ents = NULL;
	m->size = m->n = 0;
}

static int glob_bracket(const char **pp, char c)
{
	const char *p = *pp + 1;
	int negate = 0, matched = 0;

	if (*p == '!' || *p == '^') {
		negate = 1;
		p++;
	}
	for (int first = 1; *p != '\0' && (first || *p != ']'); first = 0) {
		char lo = *p++;
		if (lo == '\\' && *p != '\0')
			lo = *p++;
		char hi = lo;
		if (*p == '-' && p[1] != ']' && p[1] != '\0') {
			hi = p[1];
			p += 2;
		}
		if (c >= lo && c <= hi)
			matched = 1;
	}
	if (*p != ']')
		return -1;
	*pp = p + 1;
	return matched ^ negate;
}

/*
 * D's probe-description globs: '*' any run, '?' one character, [...] a set
 * (with ranges and ! or ^ negation), backslash quotes.  An empty or NULL
 * pattern matches everything, as an omitted description field does.
 */
int dt_glob_match(const char *p, const char *s)
{
	if (p == NULL || *p == '\0')
		return 1;
	for (;;) {
		switch (*p) {
		case '\0':
			return *s == '\0';
		case '*':
			while (*p == '*')
				p++;
			if (*p == '\0')
				return 1;
			for (; *s != '\0'; s++)
				if (dt_glob_match(p, s))
					return 1;
			return 0;
		case '?':
			if (*s == '\0')
				return 0;
			p++, s++;
			break;
		case '[': {
			if (*s == '\0')
				return 0;
			const char *q = p;
			int m = glob_bracket(&q, *s);
			if (m < 0) {	/* unclosed: a literal '[' */
				if (*s != '[')
					return 0;
				p++, s++;
			} else if (m == 0) {
				return 0;
			} else {
				p = q, s++;
			}
			break;
		}
		case '\\':
			if (p[1] != '\0')
				p++;
			/* FALLTHROUGH */
		default:
			if (*p != *s)
				return 0;
			p++, s++;
			break;
		}
	}
}

bool dt_glob_has_meta(const char *p)
{
	return p != NULL && strpbrk(p, "*?[\\") != NULL;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t dt_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t dt_wall_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}
