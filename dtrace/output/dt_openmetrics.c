/* SPDX-License-Identifier: MIT */
/*
 * dt_openmetrics.c: aggregations in the OpenMetrics text format, which
 * -x metrics serves (consumer/dt_metrics.c) and Prometheus scrapes.
 *
 * An aggregation is a metric family named DT_METRICS_PREFIX and its name
 * ("dtrace_calls" for @calls; @ alone is "dtrace_aggregation"), and each
 * of its entries a series whose labels are its keys: key0, key1... with
 * the text printa() gives them (a stack's frames joined by ';', outermost
 * first, as folded stacks are).  count() is a counter, its sample named
 * _total; sum(), min(), max(), avg() and stddev() are gauges (avg() and
 * stddev() as integers, as DTrace prints them); quantize(), lquantize()
 * and llquantize() are histograms: a cumulative _bucket sample for every
 * bucket from the first that counted something to the last, its le the
 * bucket's upper bound, then le="+Inf" and _count.  The buckets above the
 * values are all there, so that the series of several sessions (hosts)
 * add up bucket by bucket (sum by (le)); those below, whose cumulative
 * count is 0, are left out.  normalize() divides
 * as it does for printa().  A clear() brings the values back to zero,
 * which Prometheus takes as the counter reset it is; a trunc() removes
 * series, which go stale.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_output.h"
#include "dt_recval.h"

/* A label value: \, " and newlines escaped. */
static void om_escaped(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i] != '\0'; i++) {
		if (s[i] == '\\' || s[i] == '"')
			fputc('\\', out);
		if (s[i] == '\n')
			fputs("\\n", out);
		else
			fputc(s[i], out);
	}
}

static void om_frame(FILE *out, const dt_upc_t *f)
{
	char pc[32];

	if (f->text != NULL) {
		om_escaped(out, f->text, strlen(f->text));
		return;
	}
	snprintf(pc, sizeof(pc), "0x%" PRIx64, f->pc);
	fputs(pc, out);
}

/* A stack key's frames, outermost first, joined by ';'. */
static void om_stack(FILE *out, const dt_value_t *v)
{
	int n = v->nframes < DT_STACK_MAX ? v->nframes : DT_STACK_MAX;

	for (int i = n - 1; i >= 0; i--) {
		om_frame(out, &v->frames[i]);
		if (i > 0)
			fputc(';', out);
	}
}

static void om_key(FILE *out, const dt_value_t *v)
{
	const dt_recdesc_t *r = v->rec;

	if (v->outside)
		return;
	switch (r->kind) {
	case DT_RK_INT:
		fprintf(out, r->is_signed ? "%" PRId64 : "%" PRIu64,
			dt_rec_int(r, v->p));
		return;
	case DT_RK_STRING:
		om_escaped(out, (const char *)v->p, r->size);
		return;
	case DT_RK_USTACK:
	case DT_RK_KSTACK:
	case DT_RK_USAMPLE:
		om_stack(out, v);
		return;
	case DT_RK_UADDR:
		if (v->usym != NULL)
			om_escaped(out, v->usym, strlen(v->usym));
		return;
	default:
		for (uint32_t i = 0; i < r->size; i++)
			fprintf(out, "%02x", v->p[i]);
		return;
	}
}

/* The labels of row, with le (NULL: none) last. */
static void om_labels(FILE *out, const dt_aggdesc_t *d, const dt_outrow_t *row,
		      const char *le)
{
	if (d->nkeys == 0 && le == NULL)
		return;
	fputc('{', out);
	for (int k = 0; k < d->nkeys; k++) {
		fprintf(out, "%skey%d=\"", k ? "," : "", k);
		om_key(out, &row->keys[k]);
		fputc('"', out);
	}
	if (le != NULL)
		fprintf(out, "%sle=\"%s\"", d->nkeys ? "," : "", le);
	fputc('}', out);
}

/* The family's name: the prefix and the aggregation's name, made of
 * [a-zA-Z0-9_] only. */
static void om_name(FILE *out, const dt_aggdesc_t *d)
{
	const char *n = d->name[0] != '\0' ? d->name : "aggregation";

	fputs(DT_METRICS_PREFIX, out);
	for (; *n != '\0'; n++)
		fputc((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= '0' && *n <= '9') || *n == '_' ? *n : '_', out);
}

static bool om_is_histogram(const dt_aggdesc_t *d)
{
	return d->func == DT_AGG_QUANTIZE || d->func == DT_AGG_LQUANTIZE ||
	       d->func == DT_AGG_LLQUANTIZE;
}

static const char *om_type(const dt_aggdesc_t *d)
{
	return d->func == DT_AGG_COUNT ? "counter" :
	       om_is_histogram(d) ? "histogram" : "gauge";
}

/* One entry's histogram: the buckets from the first that counted
 * something to the last bounded one, cumulative, then +Inf (the last
 * bucket's bound) and the count. */
static void om_histogram(FILE *out, const dt_aggdesc_t *d,
			 const dt_outrow_t *row, const int64_t *b, int64_t nm)
{
	int n = (int)dt_agg_nwords(d), first = 0;
	int64_t total = 0;
	char le[32];

	while (first < n - 1 && b[first] == 0)
		first++;
	for (int i = first; i < n - 1; i++) {
		total += b[i] / nm;
		snprintf(le, sizeof(le), "%" PRId64, dt_agg_bucket_max(d, i));
		om_name(out, d);
		fputs("_bucket", out);
		om_labels(out, d, row, le);
		fprintf(out, " %" PRId64 "\n", total);
	}
	total += b[n - 1] / nm;
	om_name(out, d);
	fputs("_bucket", out);
	om_labels(out, d, row, "+Inf");
	fprintf(out, " %" PRId64 "\n", total);
	om_name(out, d);
	fputs("_count", out);
	om_labels(out, d, row, NULL);
	fprintf(out, " %" PRId64 "\n", total);
}

/* The value of an entry of a counter or a gauge, as printa() gives it. */
static int64_t om_scalar(const dt_aggdesc_t *d, const int64_t *v, int64_t nm)
{
	switch (d->func) {
	case DT_AGG_AVG:
		return v[0] ? v[1] / nm / v[0] : 0;
	case DT_AGG_STDDEV:
		return (int64_t)dt_agg_stddev(v, (uint64_t)nm);
	default:
		return v[0] / nm;
	}
}

static void om_row(FILE *out, const dt_aggdesc_t *d, const dt_outrow_t *row,
		   int64_t nm)
{
	const int64_t *v = row->cells[0].val;

	if (v == NULL)
		return;
	if (om_is_histogram(d)) {
		om_histogram(out, d, row, v, nm);
		return;
	}
	om_name(out, d);
	if (d->func == DT_AGG_COUNT)
		fputs("_total", out);
	om_labels(out, d, row, NULL);
	fprintf(out, " %" PRId64 "\n", om_scalar(d, v, nm));
}

int dt_openmetrics_family(FILE *out, const dt_outagg_t *agg)
{
	const dt_aggdesc_t *d = agg->descs[0];
	int64_t nm = agg->normals && agg->normals[0] ? (int64_t)agg->normals[0]
						      : 1;

	fputs("# TYPE ", out);
	om_name(out, d);
	fprintf(out, " %s\n# HELP ", om_type(d));
	om_name(out, d);
	fprintf(out, " the D aggregation @%s\n", d->name);
	for (size_t r = 0; r < agg->nrows; r++)
		om_row(out, d, &agg->rows[r], nm);
	return ferror(out) ? -1 : 0;
}
