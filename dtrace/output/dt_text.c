/* SPDX-License-Identifier: MIT */
/*
 * dt_text.c: the text output, DTrace's: the values the consumer decoded,
 * printed as DTrace prints them (dt_output.h).
 *
 * Unless -q, the first record prints DTrace's heading ("%3s %6s %32s\n":
 * CPU, ID, FUNCTION:NAME) and each record starts with its probe line
 * ("%3d %6d %32s ": cpu, PRID, "function:name") and ends with a newline;
 * actions print between.  With -F (flowindent) the heading is "CPU
 * FUNCTION" and the probe line is indented by function: see
 * dt_flow_line().  Faults and drops print nothing here: their messages
 * go to stderr, which the consumer writes.  Tracing ends with a newline
 * (even with -q), then the aggregations not printa()ed
 * (dt_text_agg.c).
 *
 * trace(): integers right-aligned unless quiet, in the width DTrace gives
 * them (trace_width()), with the sign of their type; strings through
 * dt_print_strbytes(); structs, unions and arrays as a table of their
 * bytes (and everything with -x rawbytes); stacks a frame a line.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dt_output.h"

/* The text output's state: the heading printed, and for -F the
 * indentation and the clause and probe of the last record. */
typedef struct text_out {
	dt_out_t base;
	bool heading;
	int indent;
	bool have_last;
	uint32_t last_clause, last_prid;
} text_out_t;

/* --- values --- */

void dt_print_bytes(FILE *out, const uint8_t *p, size_t n)
{
	const int margin = 5;
	size_t i, j;

	fprintf(out, "\n%*s      ", margin, "");
	for (i = 0; i < 16; i++)
		fprintf(out, "  %c", "0123456789abcdef"[i]);
	fprintf(out, "  0123456789abcdef\n");
	for (i = 0; i < n; i += 16) {
		fprintf(out, "%*s%5zx:", margin, "", i);
		for (j = i; j < i + 16 && j < n; j++)
			fprintf(out, " %02x", p[j]);
		for (; j % 16 != 0; j++)
			fputs("   ", out);
		fputs("  ", out);
		for (j = i; j < i + 16 && j < n; j++)
			fputc(p[j] < ' ' || p[j] > '~' ? '.' : p[j], out);
		fputc('\n', out);
	}
}

static bool dt_printable(int c)
{
	return isprint(c) || isspace(c) || c == '\b' || c == '\a';
}

/*
 * A string, or bytes that look like one (printable characters, then only
 * NULs), prints as a string: "  %-33s"-style when not quiet (width < 0
 * left-aligns), bare when quiet.  Anything else prints as a table.
 */
void dt_print_strbytes(dtrace_hdl_t *dtp, FILE *out, const uint8_t *p,
		       size_t n, int width, bool quiet)
{
	size_t i, j;

	if (n == 0)
		return;
	if (dtp != NULL && dtp->opt.rawbytes) {
		dt_print_bytes(out, p, n);
		return;
	}
	for (i = 0; i < n && dt_printable(p[i]); i++)
		continue;
	if (i == n || (p[i] == '\0' && i > 0)) {
		for (j = i; j < n && p[j] == '\0'; j++)
			continue;
		if (j == n) {
			if (quiet)
				fprintf(out, "%.*s", (int)i, (const char *)p);
			else
				fprintf(out, " %s%*.*s", width < 0 ? " " : "",
					width, (int)i, (const char *)p);
			return;
		}
	}
	if (i == 0 && n > 0 && p[0] == '\0') {
		/* an empty string: all NULs */
		for (j = 0; j < n && p[j] == '\0'; j++)
			continue;
		if (j == n) {
			if (!quiet)
				fprintf(out, " %s%*s", width < 0 ? " " : "",
					width, "");
			return;
		}
	}
	dt_print_bytes(out, p, n);
}

/* The width of trace()'s integers, as DTrace's: the digits of the
 * type's largest value. */
static int trace_width(const dt_recdesc_t *rec)
{
	switch (rec->size) {
	case 1:		return 3;
	case 2:		return 5;
	case 4:		return 10;
	default:	return rec->is_signed ? 19 : 20;
	}
}

void dt_text_stack(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *v)
{
	int n = v->nframes < DT_STACK_MAX ? v->nframes : DT_STACK_MAX;

	fputc('\n', out);
	for (int i = 0; i < n; i++) {
		const dt_upc_t *f = &v->frames[i];

		if (f->text != NULL)
			fprintf(out, "%*s%s\n", (int)dtp->opt.stackindent, "",
				f->text);
		else
			fprintf(out, "%*s0x%" PRIx64 "\n",
				(int)dtp->opt.stackindent, "", f->pc);
	}
}

/* ufunc() and the like: "  %-50s", as DTrace prints them, quiet or not. */
void dt_text_usym(FILE *out, const dt_value_t *v)
{
	fprintf(out, "  %-50s", v->usym != NULL ? v->usym : "");
}

void dt_text_trace(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *val)
{
	const dt_recdesc_t *rec = val->rec;
	bool quiet = dtp->opt.quiet;
	long long v;

	if (dtp->opt.rawbytes && (rec->kind == DT_RK_INT ||
				  rec->kind == DT_RK_STRING ||
				  rec->kind == DT_RK_MEM)) {
		dt_print_bytes(out, val->p, rec->size);
		return;
	}
	if (rec->type != NULL && dt_type_is_float(rec->type)) {
		/* as print() writes a float: DTrace's records of trace() have
		 * no type, which prints the bits as an integer */
		if (!quiet)
			fputc(' ', out);
		dt_print_float(out, rec->type, val->p);
		return;
	}
	switch (rec->kind) {
	case DT_RK_INT:
		v = dt_rec_int(rec, val->p);
		if (!rec->is_signed && rec->size < 8)
			v &= (long long)((1ULL << (8 * rec->size)) - 1);
		if (quiet)
			fprintf(out, rec->is_signed ? "%lld" : "%llu", v);
		else
			fprintf(out, rec->is_signed ? " %*lld" : " %*llu",
				trace_width(rec), v);
		return;
	case DT_RK_USTACK:
	case DT_RK_KSTACK:
	case DT_RK_USAMPLE:
		dt_text_stack(dtp, out, val);
		return;
	case DT_RK_UADDR:
		dt_text_usym(out, val);
		return;
	case DT_RK_MEM:
		/* a struct, union or array: its bytes, even those that
		 * would read as a string (Oracle's DTrace) */
		dt_print_bytes(out, val->p, rec->size);
		return;
	default:
		dt_print_strbytes(dtp, out, val->p, rec->size, -33, quiet);
		return;
	}
}

/* --- records --- */

typedef enum { DT_FLOW_NONE, DT_FLOW_ENTRY, DT_FLOW_RETURN } dt_flow_t;

/* Whether a probe name is `what` or ends with "-what" (method-entry),
 * not merely ending with it (carpentry). */
static bool flow_name_is(const char *name, const char *what)
{
	size_t n = strlen(name), w = strlen(what);

	return n >= w && strcmp(name + n - w, what) == 0 &&
	       (n == w || name[n - w - 1] == '-');
}

/*
 * -F: the probe line of a record, DTrace's way.  An entry probe prints
 * " -> func" and indents what follows by two; a return unindents and
 * prints " <- func"; any other probe prints "| func:name".  Several
 * clauses of one probe print one arrow: an entry that follows another
 * clause's record of the same probe, and a return that the next record
 * (next, NULL when none is known yet) repeats, print as "| ".
 */
static void dt_flow_line(text_out_t *c, const dt_rechdr_t *hdr,
			 const dtrace_probe_t *prp, const dt_rechdr_t *next)
{
	dtrace_hdl_t *dtp = c->base.dtp;
	const char *prb = prp && prp->prb ? prp->prb : "";
	const char *fun = prp && prp->fun ? prp->fun : "";
	bool sys = prp && (prp->attr & DTRACE_PROBE_SYSCALL);
	dt_flow_t flow = DT_FLOW_NONE;
	char name[1024];

	if (flow_name_is(prb, "entry"))
		flow = DT_FLOW_ENTRY;
	else if (flow_name_is(prb, "return"))
		flow = DT_FLOW_RETURN;
	if (flow == DT_FLOW_ENTRY && c->have_last &&
	    c->last_clause != hdr->clause && c->last_prid == hdr->prid)
		flow = DT_FLOW_NONE;
	if (flow == DT_FLOW_RETURN && next != NULL &&
	    next->clause != hdr->clause && next->prid == hdr->prid)
		flow = DT_FLOW_NONE;
	if (flow == DT_FLOW_RETURN && c->indent > 0)
		c->indent -= 2;
	if (!c->heading) {
		fprintf(dtp->out, "%3s %-41s\n", "CPU", "FUNCTION");
		c->heading = true;
	}
	if (flow == DT_FLOW_NONE)
		snprintf(name, sizeof(name), "%*s| %s:%s", c->indent, "",
			 fun, prb);
	else
		snprintf(name, sizeof(name), "%*s%s%s", c->indent, "",
			 flow == DT_FLOW_ENTRY ? (sys ? "->" : " -> ") :
			 (sys ? "<-" : " <- "), fun);
	fprintf(dtp->out, "%3u %-41s ", hdr->cpu, name);
	if (flow == DT_FLOW_ENTRY)
		c->indent += 2;
}

static void text_record_begin(dt_out_t *o, const dt_outrec_t *r)
{
	text_out_t *c = (text_out_t *)o;
	dtrace_hdl_t *dtp = o->dtp;
	const dt_rechdr_t *hdr = r->hdr;
	const dtrace_probe_t *prp = r->probe;
	char name[512];

	if (dtp->opt.flowindent) {
		dt_flow_line(c, hdr, prp, r->next);
	} else if (!dtp->opt.quiet) {
		if (!c->heading) {
			fprintf(dtp->out, "%3s %6s %32s\n", "CPU", "ID",
				"FUNCTION:NAME");
			c->heading = true;
		}
		snprintf(name, sizeof(name), "%s:%s",
			 prp && prp->fun ? prp->fun : "",
			 prp && prp->prb ? prp->prb : "");
		fprintf(dtp->out, "%3u %6u %32s ", hdr->cpu, hdr->prid, name);
	}
	c->have_last = true;
	c->last_clause = hdr->clause;
	c->last_prid = hdr->prid;
}

/* system(): the command its format makes, run once what was printed
 * before is out. */
static int text_system(dtrace_hdl_t *dtp, const dt_outact_t *a)
{
	const dt_actdesc_t *act = a->desc;
	char *cmd = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&cmd, &len);
	int err;

	if (mf == NULL)
		return -1;
	err = dt_printf_values(dtp, mf, act->fmt, a->vals, a->nvals, NULL, 0);
	fclose(mf);
	if (err == 0) {
		fflush(dtp->out);
		if (system(cmd) == -1)
			dt_warn(dtp, "system(\"%s\") failed: %s", cmd,
				strerror(errno));
	}
	free(cmd);
	return err;
}

/* printa(): the rows, or the format once per row. */
static int text_printa(dtrace_hdl_t *dtp, FILE *out, const dt_outact_t *a)
{
	if (a->agg == NULL)
		return -1;
	if (a->desc->fmt != NULL)
		return dt_printf_rows(dtp, out, a->desc->fmt, a->agg);
	fputc('\n', out);
	dt_text_agg_rows(dtp, out, a->agg);
	return 0;
}

/* One action of a record; those that only have effects print nothing. */
static int text_action(dt_out_t *o, const dt_outact_t *a)
{
	dtrace_hdl_t *dtp = o->dtp;
	const dt_actdesc_t *act = a->desc;
	FILE *out = dtp->out;
	const dt_value_t *v0 = a->nvals > 0 ? &a->vals[0] : NULL;

	switch (act->kind) {
	case DT_ACT_TRACE:
		if (v0 != NULL)
			dt_text_trace(dtp, out, v0);
		return 0;
	case DT_ACT_PRINT:
		if (v0 != NULL)
			dt_print_typed(dtp, out, act, v0, a->data);
		return 0;
	case DT_ACT_PRINTF:
		return dt_printf_values(dtp, out, act->fmt ? act->fmt : "",
					a->vals, a->nvals, NULL, 0);
	case DT_ACT_PRINTA:
		return text_printa(dtp, out, a);
	case DT_ACT_TRACEMEM:
	case DT_ACT_PRINTM:
		if (v0 != NULL)
			dt_print_bytes(out, v0->p, a->memlen);
		return 0;
	case DT_ACT_STACK:
	case DT_ACT_USTACK:
		if (v0 != NULL)
			dt_text_stack(dtp, out, v0);
		return 0;
	case DT_ACT_UADDR:
		if (v0 != NULL)
			dt_text_usym(out, v0);
		return 0;
	case DT_ACT_SYSTEM:
		return text_system(dtp, a);
	default:
		return 0;
	}
}

static void text_record_end(dt_out_t *o, int err)
{
	dtrace_hdl_t *dtp = o->dtp;

	if (!dtp->opt.quiet)
		fputc('\n', dtp->out);
	if (err != 0 && dtp->errmsg[0] != '\0') {
		fprintf(stderr, "dtrace: %s\n", dtp->errmsg);
		dtp->errmsg[0] = '\0';
	}
}

static void text_fault(dt_out_t *o, const dt_outfault_t *f)
{
	(void)o;
	(void)f;
}

static void text_drop(dt_out_t *o, const char *kind, int cpu, uint64_t n)
{
	(void)o;
	(void)kind;
	(void)cpu;
	(void)n;
}

/* DTrace ends tracing with a newline, even with -q. */
static void text_tracing_end(dt_out_t *o)
{
	fputc('\n', o->dtp->out);
}

static int text_aggregation(dt_out_t *o, const dt_outagg_t *agg)
{
	dt_text_agg_rows(o->dtp, o->dtp->out, agg);
	return 0;
}

static void text_destroy(dt_out_t *o)
{
	free(o);
}

static const dt_output_ops_t text_ops = {
	.name = "text",
	.each_alone = false,
	.record_begin = text_record_begin,
	.action = text_action,
	.record_end = text_record_end,
	.fault = text_fault,
	.drop = text_drop,
	.tracing_end = text_tracing_end,
	.aggregation = text_aggregation,
	.destroy = text_destroy,
};

dt_out_t *dt_text_create(dtrace_hdl_t *dtp)
{
	text_out_t *c = dt_zalloc(sizeof(*c));

	c->base.ops = &text_ops;
	c->base.dtp = dtp;
	return &c->base;
}
