/* SPDX-License-Identifier: MIT */
/*
 * dt_text_agg.c: aggregations as DTrace prints them (the text output):
 * a row per key, the key's fields then each aggregation's value, "
 * %16lld" or a histogram (40 columns of '@' for one-signed data, two half
 * bars around a centre line otherwise).
 *
 * -x aggpercpu: each row is followed by one line per CPU that recorded
 * something in it, in CPU order: the key columns replaced by "    [CPU
 * N]" (indented under the key) and that CPU's value right-aligned in the
 * total's column; a histogram row is followed by, for each CPU, the label
 * alone on a line and that CPU's histogram under it.  A joined
 * printa(@a, @b) gives each CPU line every aggregation's value for that
 * CPU (0 where it recorded nothing).  The rows come sorted and their keys
 * decoded (dt_output.h); nothing here reads a map.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_output.h"

static const char agg_ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
static const char agg_spaces[] = "                                        ";
/* One histogram bar and its count, DTrace's way: 40 columns of '@' for
 * one-signed data; two half bars around a centre line otherwise. */
static void agg_quantline(FILE *out, int64_t val, uint64_t normal,
			  long double total, bool pos, bool neg)
{
	int len = 40, depth = 0;
	long long shown = (long long)(val / (int64_t)(normal ? normal : 1));
	long double f;

	if (!neg) {
		if (pos && total != 0) {
			f = (val < 0 ? -(long double)val : val) * len / total;
			depth = (int)(f + 0.5);
		}
		fprintf(out, "|%.*s%.*s %-9lld\n", depth, agg_ats,
			len - depth, agg_spaces, shown);
		return;
	}
	if (!pos) {
		f = (val < 0 ? -(long double)val : val) * len / total;
		depth = (int)(f + 0.5);
		fprintf(out, "%.*s%.*s| %-9lld\n", len - depth, agg_spaces,
			depth, agg_ats, shown);
		return;
	}
	len /= 2;
	f = (val < 0 ? -(long double)val : val) * len / total;
	depth = (int)(f + 0.5);
	if (val <= 0)
		fprintf(out, "%.*s%.*s|%*s %-9lld\n", len - depth, agg_spaces,
			depth, agg_ats, len, "", shown);
	else
		fprintf(out, "%20s|%.*s%.*s %-9lld\n", "", depth, agg_ats,
			len - depth, agg_spaces, shown);
}

/* Range of buckets shown: one empty bucket around the data; `empty_*`
 * when every bucket is zero. */
static void agg_hist_range(const int64_t *b, int n, int empty_first,
			   int empty_last, int *first, int *last)
{
	int f = 0, l = n - 1;

	while (f < n && b[f] == 0)
		f++;
	if (f == n) {
		*first = empty_first;
		*last = empty_last;
		return;
	}
	while (l > 0 && b[l] == 0)
		l--;
	*first = f > 0 ? f - 1 : f;
	*last = l < n - 1 ? l + 1 : l;
}

static void agg_hist_header(FILE *out)
{
	fprintf(out, "\n%16s %41s %-9s\n", "value",
		"------------- Distribution -------------", "count");
}

static void agg_hist_totals(const int64_t *b, int first, int last,
			    long double *total, bool *pos, bool *neg)
{
	*total = 0;
	*pos = *neg = false;
	for (int i = first; i <= last; i++) {
		*pos |= b[i] > 0;
		*neg |= b[i] < 0;
		*total += b[i] < 0 ? -(long double)b[i] : b[i];
	}
}

static void agg_print_quantize(FILE *out, const int64_t *b, uint64_t normal)
{
	int first, last;
	long double total;
	bool pos, neg;

	agg_hist_range(b, DT_QUANTIZE_NBUCKETS, DT_QUANTIZE_ZERO - 1,
		       DT_QUANTIZE_ZERO + 1, &first, &last);
	agg_hist_totals(b, first, last, &total, &pos, &neg);
	agg_hist_header(out);
	for (int i = first; i <= last; i++) {
		long long v;

		if (i == DT_QUANTIZE_ZERO)
			v = 0;
		else if (i > DT_QUANTIZE_ZERO)
			v = (long long)(1ull << (i - DT_QUANTIZE_ZERO - 1));
		else
			v = -(long long)(1ull << (DT_QUANTIZE_ZERO - 1 - i));
		fprintf(out, "%16lld ", v);
		agg_quantline(out, b[i], normal, total, pos, neg);
	}
}

static void agg_print_lquantize(FILE *out, const dt_aggdesc_t *d,
				const int64_t *b, uint64_t normal)
{
	int levels = dt_agg_lq_levels(d), first, last;
	int64_t base = d->params[0], step = d->params[2];
	long double total;
	bool pos, neg;
	char label[48];

	agg_hist_range(b, levels + 2, 0, 2, &first, &last);
	if (last > levels + 1)
		last = levels + 1;
	agg_hist_totals(b, first, last, &total, &pos, &neg);
	agg_hist_header(out);
	for (int i = first; i <= last; i++) {
		if (i == 0)
			snprintf(label, sizeof(label), "< %lld",
				 (long long)base);
		else if (i == levels + 1)
			snprintf(label, sizeof(label), ">= %lld",
				 (long long)(base + levels * step));
		else
			snprintf(label, sizeof(label), "%lld",
				 (long long)(base + (i - 1) * step));
		fprintf(out, "%16s ", label);
		agg_quantline(out, b[i], normal, total, pos, neg);
	}
}

/* The label of llquantize bucket i (first: the first bucket printed),
 * as DTrace writes it; "" for a ghost bin. */
static void llq_label(const dt_aggdesc_t *d, int i, int first, char *buf,
		      size_t size)
{
	int64_t f = d->params[0], l = d->params[1], h = d->params[2];
	int64_t s = d->params[3];
	int n = dt_llquantize_nbuckets(f, l, h, s);
	int bin0 = dt_llquantize_bin0(f, l, h, s), k = i - bin0;
	unsigned long long lo = (unsigned long long)dt_agg_ipow(f, l);
	unsigned long long top = (unsigned long long)dt_agg_ipow(f, h + 1);

	buf[0] = '\0';
	if (i == 0)
		snprintf(buf, size, "<= -%llu", top);
	else if (i == n - 1)
		snprintf(buf, size, ">= %llu", top);
	else if (k == 0 && lo == 1)
		snprintf(buf, size, "0");
	else if (k == 0)
		snprintf(buf, size, "%s< %llu", first >= bin0 ? "" : "abs() ",
			 lo);
	else if (dt_llquantize_labelled(f, l, s, k < 0 ? -k : k))
		snprintf(buf, size, "%s%llu", k < 0 ? "-" : "",
			 (unsigned long long)dt_llquantize_lo(f, l, h, s,
							      k < 0 ? -k : k));
}

/* A ghost bin first or last takes the label of the nearest bin outside
 * (DTrace's padding: at most nsteps / factor away). */
static void llq_edge_label(const dt_aggdesc_t *d, int i, int first,
			   int dir, char *buf, size_t size)
{
	int64_t pad = d->params[3] / d->params[0];
	int n = (int)dt_agg_nwords(d);

	for (int j = 1; buf[0] == '\0' && j < pad; j++)
		if (i + dir * j >= 0 && i + dir * j < n)
			llq_label(d, i + dir * j, first, buf, size);
}

/* llquantize as Oracle DTrace prints it: the buckets with data and one on
 * either side, negative values below the bucket of abs(v) < factor^low,
 * ghost bins left out. */
static void agg_print_llquantize(FILE *out, const dt_aggdesc_t *d,
				 const int64_t *b, uint64_t normal)
{
	int n = dt_llquantize_nbuckets(d->params[0], d->params[1],
				       d->params[2], d->params[3]);
	int bin0 = dt_llquantize_bin0(d->params[0], d->params[1],
				      d->params[2], d->params[3]);
	int first, last;
	long double total;
	bool pos, neg;
	char label[48];

	if (n < 3) {
		fprintf(out, " (bad llquantize parameters)\n");
		return;
	}
	agg_hist_range(b, n, bin0, bin0 + 2, &first, &last);
	agg_hist_totals(b, first, last, &total, &pos, &neg);
	agg_hist_header(out);
	for (int i = first; i <= last; i++) {
		llq_label(d, i, first, label, sizeof(label));
		if (label[0] == '\0' && (i == first || i == last))
			llq_edge_label(d, i, first, i == first ? -1 : 1,
				       label, sizeof(label));
		if (label[0] == '\0')
			continue;
		fprintf(out, "%16s ", label);
		agg_quantline(out, b[i], normal, total, pos, neg);
	}
}

int dt_agg_print_value(FILE *out, const dt_aggdesc_t *d, const int64_t *v,
		       uint64_t normal)
{
	int64_t nm = normal ? (int64_t)normal : 1;

	switch (d->func) {
	case DT_AGG_QUANTIZE:
		agg_print_quantize(out, v, (uint64_t)nm);
		break;
	case DT_AGG_LQUANTIZE:
		agg_print_lquantize(out, d, v, (uint64_t)nm);
		break;
	case DT_AGG_LLQUANTIZE:
		agg_print_llquantize(out, d, v, (uint64_t)nm);
		break;
	case DT_AGG_AVG:
		fprintf(out, " %16lld",
			(long long)(v[0] ? v[1] / nm / v[0] : 0));
		break;
	case DT_AGG_STDDEV:
		fprintf(out, " %16llu",
			(unsigned long long)dt_agg_stddev(v, (uint64_t)nm));
		break;
	default:
		fprintf(out, " %16lld", (long long)(v[0] / nm));
		break;
	}
	return 0;
}

/* One key field, DTrace's way: integers right-aligned by size (1 and 2
 * bytes unsigned, 4 and 8 signed), strings left-aligned in 50 columns;
 * a struct or union as an integer of its size when it has one, else as a
 * string when it reads as one, else its bytes. */
static void agg_print_key(dtrace_hdl_t *dtp, FILE *out, const dt_value_t *kv)
{
	const dt_recdesc_t *r = kv->rec;
	uint64_t v = 0;

	if (r->kind == DT_RK_USTACK || r->kind == DT_RK_KSTACK) {
		dt_text_stack(dtp, out, kv);	/* ends with a newline */
		return;
	}
	if (r->kind == DT_RK_UADDR) {
		dt_text_usym(out, kv);
		return;
	}
	if (!dt_rec_is_word(r)) {	/* a struct too, unless int-sized */
		dt_print_strbytes(dtp, out, kv->p, r->size, -50, false);
		return;
	}
	memcpy(&v, kv->p, r->size < 8 ? r->size : 8);
	switch (r->size) {
	case 1:
		fprintf(out, " %3u", (unsigned)(uint8_t)v);
		break;
	case 2:
		fprintf(out, " %5u", (unsigned)(uint16_t)v);
		break;
	case 4:
		fprintf(out, " %8d", (int)(int32_t)(uint32_t)v);
		break;
	default:
		fprintf(out, " %16lld", (long long)v);
		break;
	}
}

/* CPU cpu's value of a cell, NULL when it recorded nothing. */
static const int64_t *agg_cpu_val(const dt_outcell_t *cell, int cpu)
{
	if (cell->percpu == NULL || cpu >= cell->npercpu)
		return NULL;
	return cell->percpu[cpu];
}

/* Width of the key columns of a row: the length of the last line of its
 * keys as printed (a stack key ends with a newline: 0). */
static size_t agg_key_width(dtrace_hdl_t *dtp, const dt_aggdesc_t *kd,
			    const dt_outrow_t *row)
{
	char *text = NULL, *nl;
	size_t len = 0, w;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return 0;
	for (int k = 0; k < kd->nkeys; k++)
		agg_print_key(dtp, f, &row->keys[k]);
	fclose(f);
	nl = text ? strrchr(text, '\n') : NULL;
	w = nl ? len - (size_t)(nl + 1 - text) : len;
	free(text);
	return w;
}

/* The values of one CPU for a row, as the row prints its totals. */
static char *agg_cpu_values(const dt_outagg_t *agg, const dt_outrow_t *row,
			    int cpu)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	for (int a = 0; a < agg->naggs; a++) {
		const int64_t *v = agg_cpu_val(&row->cells[a], cpu);
		int64_t *zero = NULL;

		if (v == NULL) {
			zero = dt_zalloc(dt_agg_nwords(agg->descs[a]) * 8);
			dt_agg_init_val(agg->descs[a], zero);
			v = zero;
		}
		dt_agg_print_value(f, agg->descs[a], v, agg->normals[a]);
		free(zero);
	}
	fclose(f);
	return text;
}

/*
 * One "[CPU N]" line: the label indented 4 columns in the key columns and
 * the values where the totals are.  A histogram starts on a new line: the
 * label stands alone above it.  When the key columns and the value's
 * padding are too narrow for the label, the values follow it after a
 * space.
 */
static void agg_print_cpu_line(FILE *out, int cpu, size_t keywidth,
			       const char *vals)
{
	char label[32];
	size_t ll = (size_t)snprintf(label, sizeof(label), "    [CPU %d]", cpu);
	size_t pad = strspn(vals, " ");

	if (vals[0] == '\n')
		fprintf(out, "%s%s", label, vals);
	else if (keywidth + pad >= ll + 1)
		fprintf(out, "%s%*s%s", label, (int)(keywidth + pad - ll), "",
			vals + pad);
	else
		fprintf(out, "%s %s", label, vals + pad);
	fputc('\n', out);
}

/* After a row: a line per CPU that recorded something in any of its
 * aggregations, in CPU order. */
static void agg_print_percpu(dtrace_hdl_t *dtp, FILE *out,
			     const dt_outagg_t *agg, const dt_outrow_t *row)
{
	int ncpus = 0;
	size_t keywidth;

	for (int a = 0; a < agg->naggs; a++)
		if (row->cells[a].npercpu > ncpus)
			ncpus = row->cells[a].npercpu;
	if (ncpus == 0)
		return;
	keywidth = agg_key_width(dtp, agg->descs[0], row);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		bool any = false;
		char *vals;

		for (int a = 0; a < agg->naggs; a++)
			any |= agg_cpu_val(&row->cells[a], cpu) != NULL;
		if (!any || (vals = agg_cpu_values(agg, row, cpu)) == NULL)
			continue;
		agg_print_cpu_line(out, cpu, keywidth, vals);
		free(vals);
	}
}

static void agg_print_row(dtrace_hdl_t *dtp, FILE *out,
			  const dt_outagg_t *agg, const dt_outrow_t *row)
{
	const dt_aggdesc_t *kd = agg->descs[0];
	int64_t *zero = NULL;

	for (int k = 0; k < kd->nkeys; k++)
		agg_print_key(dtp, out, &row->keys[k]);
	for (int a = 0; a < agg->naggs; a++) {
		const int64_t *v = row->cells[a].val;

		if (v == NULL) {
			free(zero);
			zero = dt_zalloc(dt_agg_nwords(agg->descs[a]) * 8);
			dt_agg_init_val(agg->descs[a], zero);
			v = zero;
		}
		dt_agg_print_value(out, agg->descs[a], v, agg->normals[a]);
	}
	free(zero);
	fputc('\n', out);
	if (dtp->opt.aggpercpu)
		agg_print_percpu(dtp, out, agg, row);
}

/* The rows of aggregations joined on their keys, in the order given (no
 * leading newline). */
void dt_text_agg_rows(dtrace_hdl_t *dtp, FILE *out, const dt_outagg_t *agg)
{
	for (size_t i = 0; i < agg->nrows; i++)
		agg_print_row(dtp, out, agg, &agg->rows[i]);
}
