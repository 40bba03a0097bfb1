/* SPDX-License-Identifier: MIT */
/*
 * dt_profile.c: the profile outputs, -x oformat=folded, flamegraph and
 * pprof.
 *
 * A profile is made of the stack aggregations: those with a stack among
 * their keys (ustack(), stack(), a sampled user stack) whose function is
 * count() or sum().  Each entry is a stack and a weight; the keys beside
 * the stack become its outermost frames ("python3.11;main;f"), and when
 * several aggregations qualify each one's name is the root frame.  The
 * profile is written once, when everything was printed (ops->finish):
 * folded stacks ("frame;frame;frame weight" a line, outermost first, as
 * FlameGraph, inferno and speedscope read them), a flame graph
 * (dt_flamegraph.c) or a gzipped pprof profile (dt_pprof.c, which takes
 * the aggregations themselves: its frames carry their modules and lines),
 * into a buffer first and then to the output in one write, so that a
 * failure leaves nothing half-written; a pprof profile, being binary,
 * goes to a file (-o) only.  What the records print, and the other
 * aggregations, go to stderr as text: the output holds the profile
 * alone.
 *
 * A frame is named by its function, without the offset into it
 * ("libc.so.6`malloc", "vmlinux`do_sys_openat2"), so that the firings
 * of one function add up; a user frame no symbol covers keeps its module
 * and address, a kernel frame kallsyms does not know its address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_output.h"
#include "dt_recval.h"

typedef struct profile_out {
	dt_out_t base;
	dt_out_t *text;		/* records and other aggregations, stderr */
	char *folded;		/* the stacks so far, folded */
	size_t len;
	FILE *acc;		/* writes to folded */
	int nstacked;		/* stack aggregations in the program */
	dt_pprof_t *pprof;	/* -x oformat=pprof: the profile so far */
} profile_out_t;

int dt_profile_stack_key(const dt_aggdesc_t *d)
{
	if (d->func != DT_AGG_COUNT && d->func != DT_AGG_SUM)
		return -1;
	for (int k = 0; k < d->nkeys; k++)
		if (dt_rec_is_stack(&d->keys[k]))
			return k;
	return -1;
}

/* Whether the aggregation d makes a profile: a stack key, and a weight. */
static bool profile_agg(const dt_aggdesc_t *d)
{
	return dt_profile_stack_key(d) >= 0;
}

static int stacked_aggs(const dtrace_hdl_t *dtp)
{
	int n = 0;

	for (int id = 0; id < dt_pd_naggs(dtp); id++) {
		const dt_aggdesc_t *d = dt_pd_agg(dtp, id);
		n += d != NULL && profile_agg(d);
	}
	return n;
}

int dt_profile_fits(dtrace_hdl_t *dtp)
{
	if (dtp->opt.oformat < DT_OFORMAT_FOLDED)
		return 0;
	if (stacked_aggs(dtp) == 0) {
		dt_set_error(dtp, "-x oformat=%s: no aggregation of count() or "
			     "sum() is keyed by a stack (ustack(), stack())",
			     dt_oformat_name(dtp->opt.oformat));
		return -1;
	}
	if (dtp->opt.oformat == DT_OFORMAT_PPROF && !dtp->out_named) {
		dt_set_error(dtp, "-x oformat=pprof: a profile is written to a "
			     "file: name it with -o FILE");
		return -1;
	}
	return 0;
}

/* One frame's name, at most n bytes of s, for the folded line: ';' and
 * white space would split it. */
static void put_bytes(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i] != '\0'; i++)
		fputc(s[i] == ';' ? ':' :
		      s[i] == ' ' || s[i] == '\n' || s[i] == '\t' ? '_' : s[i],
		      out);
}

static void put_name(FILE *out, const char *s)
{
	put_bytes(out, s, strlen(s));
}

static void put_frame(FILE *out, const dt_upc_t *f)
{
	if (f->found && f->symbol != NULL) {
		put_name(out, f->module);
		fputc('`', out);
		put_name(out, f->symbol);
	} else if (f->text != NULL) {
		put_name(out, f->text);
	} else {
		fprintf(out, "0x%" PRIx64, f->pc);
	}
}

/* A key beside the stack, as a frame. */
static void put_key(FILE *out, const dt_value_t *v)
{
	const dt_recdesc_t *r = v->rec;

	if (v->outside)
		fputs("?", out);
	else if (r->kind == DT_RK_INT)
		fprintf(out, r->is_signed ? "%" PRId64 : "%" PRIu64,
			dt_rec_int(r, v->p));
	else if (r->kind == DT_RK_STRING)
		put_bytes(out, (const char *)v->p, r->size);
	else if (r->kind == DT_RK_UADDR && v->usym != NULL)
		put_name(out, v->usym);
	else
		fputs("?", out);
}

/* One entry as a folded line: the name of the aggregation when there are
 * several, the other keys, the stack from its outermost frame, and the
 * weight. */
static void put_row(profile_out_t *p, const dt_aggdesc_t *d,
		    const dt_outrow_t *row, int64_t normal)
{
	const int64_t *v = row->cells[0].val;
	const dt_value_t *stack = NULL;
	const char *sep = "";

	if (v == NULL || v[0] / normal <= 0)
		return;		/* folded weights are positive */
	if (p->nstacked > 1) {
		fputc('@', p->acc);
		put_name(p->acc, d->name);
		sep = ";";
	}
	for (int k = 0; k < d->nkeys; k++) {
		if (dt_rec_is_stack(&d->keys[k])) {
			stack = stack ? stack : &row->keys[k];
			continue;
		}
		fputs(sep, p->acc);
		put_key(p->acc, &row->keys[k]);
		sep = ";";
	}
	int n = stack->nframes < DT_STACK_MAX ? stack->nframes : DT_STACK_MAX;
	for (int i = n - 1; i >= 0; i--) {
		fputs(sep, p->acc);
		put_frame(p->acc, &stack->frames[i]);
		sep = ";";
	}
	fprintf(p->acc, "%s %" PRId64 "\n", *sep ? "" : "[no frames]",
		v[0] / normal);
}

/* ---- the output ---- */

/* Run fn of the text output with its writes on stderr. */
#define ON_STDERR(p, call) do {						\
	FILE *out_ = (p)->base.dtp->out;				\
	(p)->base.dtp->out = stderr;					\
	call;								\
	(p)->base.dtp->out = out_;					\
} while (0)

static void profile_record_begin(dt_out_t *o, const dt_outrec_t *r)
{
	profile_out_t *p = (profile_out_t *)o;

	ON_STDERR(p, p->text->ops->record_begin(p->text, r));
}

static int profile_action(dt_out_t *o, const dt_outact_t *a)
{
	profile_out_t *p = (profile_out_t *)o;
	int rc = 0;

	ON_STDERR(p, rc = p->text->ops->action(p->text, a));
	return rc;
}

static void profile_record_end(dt_out_t *o, int err)
{
	profile_out_t *p = (profile_out_t *)o;

	ON_STDERR(p, p->text->ops->record_end(p->text, err));
}

static void profile_fault(dt_out_t *o, const dt_outfault_t *f)
{
	(void)o;
	(void)f;
}

static void profile_drop(dt_out_t *o, const char *kind, int cpu, uint64_t n)
{
	(void)o;
	(void)kind;
	(void)cpu;
	(void)n;
}

static void profile_tracing_end(dt_out_t *o)
{
	(void)o;
}

/* A stack aggregation joins the profile; another is text on stderr. */
static int profile_aggregation(dt_out_t *o, const dt_outagg_t *agg)
{
	profile_out_t *p = (profile_out_t *)o;
	const dt_aggdesc_t *d = agg->descs[0];
	int64_t normal = agg->normals && agg->normals[0] ?
			 (int64_t)agg->normals[0] : 1;

	if (!profile_agg(d)) {
		int rc = 0;
		ON_STDERR(p, rc = p->text->ops->aggregation(p->text, agg));
		return rc;
	}
	if (p->pprof != NULL) {
		dt_pprof_add(p->pprof, agg);
		return 0;
	}
	for (size_t r = 0; r < agg->nrows; r++)
		put_row(p, d, &agg->rows[r], normal);
	return 0;
}

/* A folded line's stack: the line up to its last space. */
static size_t stack_len(const char *line)
{
	const char *sp = strrchr(line, ' ');

	return sp != NULL ? (size_t)(sp - line) : strlen(line);
}

static int line_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t nx = stack_len(x), ny = stack_len(y);
	int c = strncmp(x, y, nx < ny ? nx : ny);

	return c != 0 ? c : (nx > ny) - (nx < ny);
}

/* The folded lines sorted by stack, those of one stack made one (frames
 * named by function: the calls from two places in one function are one
 * stack).  A new buffer of *len bytes. */
static char *fold_merged(profile_out_t *p, size_t *len)
{
	char **lines = NULL, *text = NULL;
	size_t n = 0, cap = 0;
	FILE *out;

	for (char *s = p->folded, *nl; s < p->folded + p->len; s = nl + 1) {
		nl = strchr(s, '\n');
		*nl = '\0';
		dt_array_room(lines, n, cap);
		lines[n++] = s;
	}
	if (n > 1)
		qsort(lines, n, sizeof(*lines), line_cmp);
	if ((out = open_memstream(&text, len)) == NULL)
		dt_nomem();
	for (size_t i = 0; i < n;) {
		int64_t w = 0;
		size_t j = i;
		for (; j < n && line_cmp(&lines[i], &lines[j]) == 0; j++)
			w += strtoll(lines[j] + stack_len(lines[j]) + 1, NULL,
				     10);
		fprintf(out, "%.*s %" PRId64 "\n", (int)stack_len(lines[i]),
			lines[i], w);
		i = j;
	}
	if (fclose(out) != 0)
		dt_nomem();
	free(lines);
	return text;
}

/* The pprof profile, gzipped into a buffer, then written whole. */
static int pprof_finish(profile_out_t *p)
{
	dtrace_hdl_t *dtp = p->base.dtp;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc;

	if (mem == NULL)
		dt_nomem();
	rc = dt_pprof_write_built(p->pprof, mem);
	if (fclose(mem) != 0 || rc < 0) {
		free(buf);
		dt_set_error(dtp, "-x oformat=pprof: the profile could not be "
			     "made: %s", strerror(errno));
		return -1;
	}
	rc = fwrite(buf, 1, len, dtp->out) == len && fflush(dtp->out) == 0 ?
	     0 : -1;
	dtp->out_complete = rc == 0;
	free(buf);
	return rc;
}

/* The profile, written whole. */
static int profile_finish(dt_out_t *o)
{
	profile_out_t *p = (profile_out_t *)o;
	dtrace_hdl_t *dtp = o->dtp;
	char *text = NULL, *folded;
	size_t len = 0, flen;
	int rc = 0;

	if (p->pprof != NULL)
		return pprof_finish(p);
	if (fflush(p->acc) != 0)
		dt_nomem();
	folded = fold_merged(p, &flen);
	if (dtp->opt.oformat == DT_OFORMAT_FOLDED) {
		text = folded;
		len = flen;
		folded = NULL;
	} else if (dt_flamegraph_write(dtp, folded, flen, &text, &len) < 0) {
		free(folded);
		return -1;
	}
	free(folded);
	if (fwrite(text, 1, len, dtp->out) != len || fflush(dtp->out) != 0)
		rc = -1;	/* the session says what failed */
	dtp->out_complete = rc == 0;
	free(text);
	return rc;
}

static void profile_destroy(dt_out_t *o)
{
	profile_out_t *p = (profile_out_t *)o;

	p->text->ops->destroy(p->text);
	if (p->pprof != NULL)
		dt_pprof_destroy(p->pprof);
	fclose(p->acc);
	free(p->folded);
	free(p);
}

static const dt_output_ops_t profile_ops = {
	.name = "profile",
	.each_alone = false,
	.record_begin = profile_record_begin,
	.action = profile_action,
	.record_end = profile_record_end,
	.fault = profile_fault,
	.drop = profile_drop,
	.tracing_end = profile_tracing_end,
	.aggregation = profile_aggregation,
	.finish = profile_finish,
	.destroy = profile_destroy,
};

dt_out_t *dt_profile_create(dtrace_hdl_t *dtp)
{
	profile_out_t *p = dt_zalloc(sizeof(*p));

	p->base.ops = &profile_ops;
	p->base.dtp = dtp;
	p->text = dt_text_create(dtp);
	p->acc = open_memstream(&p->folded, &p->len);
	p->nstacked = stacked_aggs(dtp);
	if (dtp->opt.oformat == DT_OFORMAT_PPROF)
		p->pprof = dt_pprof_create(dtp);
	if (p->acc == NULL)
		dt_nomem();
	return &p->base;
}
