/* SPDX-License-Identifier: MIT */
/*
 * dt_pcb.c: the compile control block: its arena and its error exit.
 *
 * Invariants:
 *  - Every allocation made for one compile (source copy, tokens, nodes,
 *    lexer state) comes from the pcb's arena and is released by the single
 *    dt_pcb_fini(), whether the compile succeeded or longjmp'ed out of an
 *    error.  Nothing in the arena is freed one by one.
 *  - dt_pcb_error() is the one way a compile fails: it writes the message
 *    the command prints into dtp->errmsg, the tag into dtp->errtag, and
 *    jumps to pcb->jb.  It never returns.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"

#define ARENA_CHUNK	(64 * 1024)

/* A chunk of the arena; big requests get a chunk of their own. */
struct dt_arena {
	struct dt_arena *next;
	size_t used, size;
	max_align_t data[];
};

static struct dt_arena *arena_chunk(size_t size)
{
	struct dt_arena *a = malloc(sizeof(*a) + size);

	if (a == NULL) {
		fprintf(stderr, "dtrace: out of memory\n");
		exit(2);
	}
	a->next = NULL;
	a->used = 0;
	a->size = size;
	return a;
}

void *dt_pcb_alloc(dt_pcb_t *pcb, size_t size)
{
	struct dt_arena *a = pcb->arena;
	size_t need = (size + 15) & ~(size_t)15;
	void *p;

	if (need < size)
		dt_pcb_error(pcb, D_NOMEM, 0, "out of memory");
	if (a == NULL || a->size - a->used < need) {
		struct dt_arena *c = arena_chunk(need > ARENA_CHUNK / 4 ?
						 need : ARENA_CHUNK);

		if (need > ARENA_CHUNK / 4 && a != NULL) {
			/* keep filling the current chunk afterwards */
			c->next = a->next;
			a->next = c;
			c->used = need;
			memset(c->data, 0, size);
			return c->data;
		}
		c->next = a;
		pcb->arena = a = c;
	}
	p = (char *)a->data + a->used;
	a->used += need;
	memset(p, 0, size);
	return p;
}

char *dt_pcb_strndup(dt_pcb_t *pcb, const char *s, size_t n)
{
	char *p = dt_pcb_alloc(pcb, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *dt_pcb_strdup(dt_pcb_t *pcb, const char *s)
{
	return dt_pcb_strndup(pcb, s, strlen(s));
}

void dt_pcb_init(dt_pcb_t *pcb, dtrace_hdl_t *dtp, const char *src,
		 size_t len, const char *srcname, bool from_cmdline)
{
	memset(pcb, 0, sizeof(*pcb));
	pcb->dtp = dtp;
	pcb->from_cmdline = from_cmdline;
	pcb->default_ctx = DT_CTX_NAME;
	/* A private NUL-terminated copy: the lexer may look one past. */
	pcb->src = dt_pcb_strndup(pcb, src != NULL ? src : "", src ? len : 0);
	pcb->srclen = src != NULL ? len : 0;
	pcb->srcname = srcname != NULL ? dt_pcb_strdup(pcb, srcname) : NULL;
	pcb->prog = dt_pcb_alloc(pcb, sizeof(*pcb->prog));
}

void dt_pcb_fini(dt_pcb_t *pcb)
{
	struct dt_arena *a, *next;

	for (a = pcb->arena; a != NULL; a = next) {
		next = a->next;
		free(a);
	}
	pcb->arena = NULL;
	pcb->prog = NULL;
	pcb->lex = NULL;
	pcb->src = NULL;
	pcb->srcname = NULL;
}

/*
 * The specifier as the user gave it, for "invalid probe specifier TEXT":
 * the source without the line markers and trailing newline that cpp adds
 * under -C.
 */
static void spec_text(const dt_pcb_t *pcb, char *buf, size_t size)
{
	const char *p = pcb->src, *end = pcb->src + pcb->srclen;
	size_t n = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl + 1 : end;
		bool marker = p[0] == '#' && eol - p > 2 && p[1] == ' ' &&
			      p[2] >= '0' && p[2] <= '9';

		for (; !marker && p < eol && n + 1 < size; p++)
			buf[n++] = *p;
		p = eol;
	}
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
}

void dt_pcb_error(dt_pcb_t *pcb, dt_errtag_t tag, int line,
		  const char *fmt, ...)
{
	dtrace_hdl_t *dtp = pcb->dtp;
	char msg[768], tagbuf[40] = "";
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';

	if (dtp->opt.errtags)
		snprintf(tagbuf, sizeof(tagbuf), "[%s] ", dt_errtag_name(tag));
	if (pcb->library) {
		snprintf(dtp->errmsg, sizeof(dtp->errmsg),
			 "%s\"%.200s\", line %d: %.600s", tagbuf, pcb->srcname,
			 line > 0 ? line : 1, msg);
	} else if (pcb->from_cmdline) {
		char spec[512];

		spec_text(pcb, spec, sizeof(spec));
		snprintf(dtp->errmsg, sizeof(dtp->errmsg),
			 "invalid probe specifier %.300s: %s%.600s", spec,
			 tagbuf, msg);
	} else {
		snprintf(dtp->errmsg, sizeof(dtp->errmsg),
			 "failed to compile script %.200s: %sline %d: %.600s",
			 pcb->srcname != NULL ? pcb->srcname : "<stdin>",
			 tagbuf, line > 0 ? line : 1, msg);
	}
	dtp->errtag = tag;
	longjmp(pcb->jb, 1);
}

void dt_pcb_error_wrap(dt_pcb_t *pcb)
{
	dtrace_hdl_t *dtp = pcb->dtp;
	char inner[sizeof(dtp->errmsg)];

	snprintf(inner, sizeof(inner), "%s", dtp->errmsg);
	if (pcb->from_cmdline) {
		char spec[512];

		spec_text(pcb, spec, sizeof(spec));
		snprintf(dtp->errmsg, sizeof(dtp->errmsg),
			 "invalid probe specifier %.300s: %.690s", spec, inner);
	} else {
		snprintf(dtp->errmsg, sizeof(dtp->errmsg),
			 "failed to compile script %.200s: %.780s",
			 pcb->srcname != NULL ? pcb->srcname : "<stdin>",
			 inner);
	}
	longjmp(pcb->jb, 1);
}
