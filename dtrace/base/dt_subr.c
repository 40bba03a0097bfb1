/* SPDX-License-Identifier: MIT */
/*
 * dt_subr.c: small utilities of the engine: allocation that cannot fail
 * silently (also for the hash tables and arrays of dt_hash.h and
 * dt_array.h), error and warning messages, the (tag, name) map of
 * dt_strmap.h, D's glob matching, clocks and times as options give them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dt_impl.h"
#include "dt_strmap.h"

/* Out of memory in the consumer is not something dtrace can trace through:
 * say so and stop, rather than let every caller grow an error path. */
_Noreturn void dt_nomem(void)
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

char *dt_read_stream(FILE *f, size_t max, size_t *lenp)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	do {
		dt_array_need(buf, cap, len + 4096 + 1);
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0 && len <= max);
	if (ferror(f) || len > max) {
		int err = len > max ? EFBIG : errno ? errno : EIO;
		free(buf);
		errno = err;
		return NULL;
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
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

void dt_debug(dtrace_hdl_t *dtp, const char *fmt, ...)
{
	va_list ap;

	if (!dtp->opt.debug)
		return;
	fputs("dtrace DEBUG: ", stderr);
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

/* ---- dt_strmap_t ---- */

struct dt_strmap_ent {
	const char *name;
	uint32_t tag;
	void *v;
};

static bool strmap_eq(const void *elem, const void *key)
{
	const struct dt_strmap_ent *e = elem, *k = key;

	return e->tag == k->tag && strcmp(e->name, k->name) == 0;
}

static uint64_t strmap_hash(uint32_t tag, const char *name)
{
	return dt_hash_str(dt_hash_u64(DT_HASH_INIT, tag), name);
}

static void *strmap_arena_zalloc(void *pcb, size_t size)
{
	return dt_pcb_alloc(pcb, size);
}

void *dt_strmap_get(const dt_strmap_t *m, uint32_t tag, const char *name)
{
	struct dt_strmap_ent k = { .name = name, .tag = tag }, *e;

	e = dt_htab_find(&m->tab, strmap_hash(tag, name), &k);
	return e != NULL ? e->v : NULL;
}

void dt_strmap_put(dt_strmap_t *m, uint32_t tag, const char *name, void *v)
{
	struct dt_strmap_ent k = { .name = name, .tag = tag };

	if (m->tab.eq == NULL) {
		dt_htab_init(&m->tab, sizeof(k), strmap_eq);
		if (m->pcb != NULL) {	/* the arena frees it all at once */
			m->tab.zalloc = strmap_arena_zalloc;
			m->tab.ctx = m->pcb;
		} else {
			dt_htab_nofail(&m->tab);
		}
	}
	struct dt_strmap_ent *e = dt_htab_insert(&m->tab, strmap_hash(tag, name),
						 &k, NULL);
	*e = (struct dt_strmap_ent){ .name = name, .tag = tag, .v = v };
}

void dt_strmap_fini(dt_strmap_t *m)
{
	dt_htab_fini(&m->tab);
}

/* ---- allocation that never fails, for the utility layer ---- */

static void *nofail_zalloc(void *ctx, size_t size)
{
	(void)ctx;
	return dt_zalloc(size);
}

static void nofail_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

void dt_htab_nofail(dt_htab_t *t)
{
	t->zalloc = nofail_zalloc;
	t->free = nofail_free;
}

/* ---- D's globs ---- */

/* Match a bracket expression at *pp against c; advance *pp past it.
 * Returns 1 on a match, 0 on none, -1 if the bracket is not closed. */
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

static int parse_u64(const char *s, char **end, uint64_t *v)
{
	errno = 0;
	if (*s == '-' || *s == '\0')
		return -1;
	*v = strtoull(s, end, 0);
	return errno ? -1 : 0;
}

int dt_parse_size(const char *s, uint64_t *v)
{
	char *end;

	if (parse_u64(s, &end, v) < 0)
		return -1;
	uint64_t mult = 1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	case 't': case 'T': mult = 1ull << 40; end++; break;
	default: return -1;
	}
	if (*end != '\0' || (mult > 1 && *v > UINT64_MAX / mult))
		return -1;
	*v *= mult;
	return 0;
}

uint64_t dt_printsize_value(uint64_t v)
{
	if (v == 0 || v > DT_PRINTSIZE_MAX)
		v = DT_PRINTSIZE_DEFAULT;
	return (v + 7) & ~7ull;
}

int dt_parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; uint64_t mult; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "nsec", 1 }, { "us", 1000 },
		{ "usec", 1000 }, { "ms", 1000000 }, { "msec", 1000000 },
		{ "s", 1000000000ull }, { "sec", 1000000000ull },
		{ "m", 60000000000ull }, { "min", 60000000000ull },
		{ "h", 3600000000000ull }, { "hour", 3600000000000ull },
		{ "d", 86400000000000ull }, { "day", 86400000000000ull },
	};
	char *end;

	errno = 0;
	if (*s == '-' || *s == '\0')
		return -1;
	*ns = strtoull(s, &end, 0);
	if (errno != 0)
		return -1;
	if (strcasecmp(end, "hz") == 0) {
		if (*ns == 0)
			return -1;
		*ns = 1000000000ull / *ns;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].sfx) == 0) {
			*ns *= units[i].mult;
			return 0;
		}
	}
	return -1;
}
