/* SPDX-License-Identifier: MIT */
/*
 * dt_agg_print.c: aggregations sorted and walked for printing: the rows
 * of a printa() (one aggregation, or several joined on their keys) in
 * DTrace's order, their keys decoded (dt_decode.c), handed to the output
 * (output/dt_output.h: dt_outagg_t), which prints them as text or JSON.
 *
 * Order: by value (DTrace's ordering of each function's values), then by
 * key, fields compared from -x aggsortkeypos, integers as unsigned;
 * aggsortkey sorts by key first, aggsortrev reverses, aggsortpos picks
 * the aggregation of a join whose value sorts.
 *
 * Invariants: a printa() marks the aggregations it printed, so that they
 * are not printed again at exit; printing never changes the entries.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_agg_impl.h"

/* Lower bound of histogram bucket i, for ordering histograms. */
static long double agg_bucket_val(const dt_aggdesc_t *d, int i, int n)
{
	switch (d->func) {
	case DT_AGG_QUANTIZE:
		if (i == DT_QUANTIZE_ZERO)
			return 0;
		if (i > DT_QUANTIZE_ZERO)
			return (long double)(1ull << (i - DT_QUANTIZE_ZERO - 1));
		return -(long double)(1ull << (DT_QUANTIZE_ZERO - 1 - i));
	case DT_AGG_LQUANTIZE:
		return (long double)(d->params[0] +
				     (int64_t)(i - 1) * d->params[2]);
	default:
		return (long double)i / (n ? n : 1);
	}
}

/* Compare two values of one function: DTrace's ordering of values. */
static int agg_valcmp(const dt_aggdesc_t *d, const int64_t *a,
		      const int64_t *b)
{
	long double la = 0, lb = 0;
	int i, n;

	switch (d->func) {
	case DT_AGG_COUNT:
		return (uint64_t)a[0] < (uint64_t)b[0] ? -1 :
		       (uint64_t)a[0] > (uint64_t)b[0];
	case DT_AGG_AVG:
		la = a[0] ? a[1] / a[0] : 0;
		lb = b[0] ? b[1] / b[0] : 0;
		break;
	case DT_AGG_STDDEV:
		la = dt_agg_stddev(a, 1);
		lb = dt_agg_stddev(b, 1);
		break;
	case DT_AGG_QUANTIZE:
	case DT_AGG_LQUANTIZE:
	case DT_AGG_LLQUANTIZE:
		n = (int)dt_agg_nwords(d);
		for (i = 0; i < n; i++) {
			la += agg_bucket_val(d, i, n) * a[i];
			lb += agg_bucket_val(d, i, n) * b[i];
		}
		if (la == lb && d->func == DT_AGG_QUANTIZE) {
			la = a[DT_QUANTIZE_ZERO];
			lb = b[DT_QUANTIZE_ZERO];
		}
		break;
	default:
		la = a[0];
		lb = b[0];
		break;
	}
	return la < lb ? -1 : la > lb;
}

static uint64_t key_int(const dt_recdesc_t *r, const uint8_t *key)
{
	uint64_t v = 0;

	memcpy(&v, key + r->offset, r->size < 8 ? r->size : 8);
	return v;
}

/* Keys compare field by field from key position `from`: integers, and
 * structs and unions of an integer's size, as unsigned values (as DTrace
 * sorts them), strings and other bytes bytewise. */
static int agg_keycmp(const dt_aggdesc_t *d, const uint8_t *a,
		      const uint8_t *b, int from)
{
	for (int k = 0; k < d->nkeys; k++) {
		const dt_recdesc_t *r = &d->keys[(k + from) % d->nkeys];
		int c;

		if (dt_rec_is_word(r)) {
			uint64_t x = key_int(r, a), y = key_int(r, b);

			c = x < y ? -1 : x > y;
		} else if (r->kind == DT_RK_UADDR) {	/* pid, then address */
			uint64_t x[2], y[2];

			memcpy(x, a + r->offset, 16);
			memcpy(y, b + r->offset, 16);
			c = x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) :
			    x[1] < y[1] ? -1 : x[1] > y[1];
		} else if (r->kind == DT_RK_STRING) {
			c = strncmp((const char *)a + r->offset,
				    (const char *)b + r->offset, r->size);
		} else {
			c = memcmp(a + r->offset, b + r->offset, r->size);
		}
		if (c != 0)
			return c;
	}
	return 0;
}


typedef struct agg_sortctx {
	dtrace_hdl_t *dtp;
	dt_aggstate_t **aggs;
	int naggs;
	int pos;		/* which aggregation's value sorts */
} agg_sortctx_t;

static int agg_rowcmp(const void *pa, const void *pb, void *arg)
{
	const dt_agg_row_t *a = pa, *b = pb;
	agg_sortctx_t *sc = arg;
	const dt_options_t *o = &sc->dtp->opt;
	const dt_aggdesc_t *d = sc->aggs[sc->pos]->desc;
	const int64_t *va = a->vals[sc->pos], *vb = b->vals[sc->pos];
	int keypos = (int)o->aggsortkeypos;
	int64_t *zero = NULL;
	int c, kc;

	if (keypos < 0 || (d->nkeys > 0 && keypos >= d->nkeys))
		keypos = 0;
	kc = agg_keycmp(sc->aggs[0]->desc, a->key, b->key, keypos);
	if (va == NULL || vb == NULL) {
		zero = dt_zalloc(dt_agg_nwords(d) * sizeof(int64_t));
		dt_agg_init_val(d, zero);
		va = va ? va : zero;
		vb = vb ? vb : zero;
	}
	c = agg_valcmp(d, va, vb);
	free(zero);
	if (o->aggsortkey)
		c = kc != 0 ? kc : c;
	else
		c = c != 0 ? c : kc;
	return o->aggsortrev ? -c : c;
}

/* Build the sorted rows of the aggregations ids[0..n-1] joined on key. */
dt_agg_row_t *dt_agg_rows(dtrace_hdl_t *dtp, dt_aggstate_t **aggs, int n,
			  size_t *nrows)
{
	size_t cap = 0, rows = 0;
	dt_agg_row_t *r = NULL;
	agg_sortctx_t sc = { dtp, aggs, n, 0 };

	for (int a = 0; a < n; a++) {
		const dt_aggdesc_t *d = aggs[a]->desc;

		for (size_t i = 0; i < aggs[a]->nents; i++) {
			const dt_aggent_t *e = &aggs[a]->ents[i];
			size_t j = rows;

			/* keys are unique within one aggregation: only a
			 * join searches (linearly: joins are small) */
			for (j = a == 0 ? rows : 0; j < rows; j++) {
				if (d->keysize == 0 ||
				    memcmp(r[j].key, e->key, d->keysize) == 0)
					break;
			}
			if (j == rows) {
				dt_array_room(r, rows, cap);
				r[rows].key = e->key;
				r[rows].ent = i;
				r[rows].vals = dt_zalloc(sizeof(int64_t *) *
							 (size_t)n);
				r[rows].ents = dt_zalloc(sizeof(*r->ents) *
							 (size_t)n);
				rows++;
			}
			r[j].vals[a] = e->val;
			r[j].ents[a] = e;
		}
	}
	if (n > 1 && dtp->opt.aggsortpos > 0 && dtp->opt.aggsortpos < n)
		sc.pos = (int)dtp->opt.aggsortpos;
	if (rows > 1)
		qsort_r(r, rows, sizeof(*r), agg_rowcmp, &sc);
	*nrows = rows;
	return r;
}

void dt_agg_rows_free(dt_agg_row_t *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].vals);
		free(r[i].ents);
	}
	free(r);
}

static int agg_collect(dtrace_hdl_t *dtp, const int *ids, int n,
		       dt_aggstate_t ***aggsp)
{
	dt_aggstate_t **aggs = dt_zalloc(sizeof(*aggs) * (size_t)(n ? n : 1));

	for (int i = 0; i < n; i++) {
		aggs[i] = dt_agg_state(dtp, ids[i]);
		if (aggs[i] == NULL) {
			dt_set_error(dtp, "no aggregation with id %d", ids[i]);
			free(aggs);
			return -1;
		}
	}
	*aggsp = aggs;
	return 0;
}

/* --- the printa walk --- */

/* Aggregations joined and sorted into what an output prints: their rows
 * with the keys decoded.  The values point into the entries. */
static dt_outagg_t *outagg_make(dtrace_hdl_t *dtp, dt_aggstate_t **aggs,
				int n)
{
	dt_outagg_t *oa = dt_zalloc(sizeof(*oa));
	const dt_aggdesc_t *kd = aggs[0]->desc;
	size_t nrows = 0, nk = (size_t)kd->nkeys;
	dt_agg_row_t *rows = dt_agg_rows(dtp, aggs, n, &nrows);
	dt_value_t *keys = nrows * nk != 0 ? dt_zalloc(sizeof(*keys) * nrows * nk)
				       : NULL;
	dt_outcell_t *cells = nrows != 0 ? dt_zalloc(sizeof(*cells) * nrows *
						(size_t)n) : NULL;
	uint64_t *normals = dt_zalloc(sizeof(*normals) * (size_t)n);

	oa->naggs = n;
	oa->descs = dt_zalloc(sizeof(*oa->descs) * (size_t)n);
	for (int a = 0; a < n; a++) {
		oa->descs[a] = aggs[a]->desc;
		normals[a] = aggs[a]->normal;
	}
	oa->normals = normals;
	oa->nrows = nrows;
	oa->rows = dt_zalloc(sizeof(*oa->rows) * (nrows ? nrows : 1));
	for (size_t i = 0; i < nrows; i++) {
		dt_outrow_t *row = &oa->rows[i];

		row->key = rows[i].key;
		row->keys = &keys[i * nk];
		row->cells = &cells[i * (size_t)n];
		for (size_t k = 0; k < nk; k++) {
			const dt_recdesc_t *r = &kd->keys[k];

			if (kd->keysize &&
			    r->offset + (size_t)r->size > kd->keysize) {
				row->keys[k].rec = r;	/* not to be read */
				row->keys[k].outside = true;
				continue;
			}
			dt_value_decode(dtp, &row->keys[k], r,
					rows[i].key + r->offset);
		}
		for (int a = 0; a < n; a++) {
			const dt_aggent_t *e = rows[i].ents[a];

			row->cells[a].val = rows[i].vals[a];
			row->cells[a].percpu = e != NULL ? e->percpu : NULL;
			row->cells[a].npercpu = e != NULL ? e->npercpu : 0;
		}
	}
	dt_agg_rows_free(rows, nrows);
	return oa;
}

static void outagg_free(dt_outagg_t *oa)
{
	if (oa == NULL)
		return;
	for (size_t i = 0; i < oa->nrows; i++)
		for (int k = 0; k < oa->descs[0]->nkeys; k++)
			dt_value_free(&oa->rows[i].keys[k]);
	if (oa->nrows > 0) {
		free(oa->rows[0].keys);
		free(oa->rows[0].cells);
	}
	free(oa->rows);
	free((void *)oa->normals);
	free(oa->descs);
	free(oa);
}

/* printa() marks what it printed (not the printing at exit, as in
 * DTrace). */
static void mark_printed(dt_aggstate_t **aggs, int n)
{
	for (int a = 0; a < n; a++)
		if (aggs[a]->nents > 0)
			aggs[a]->printed = true;
}

/* The aggregations ids[0..n-1] snapshot and joined; NULL after
 * dt_set_error(). */
static dt_outagg_t *outagg_of_ids(dtrace_hdl_t *dtp, const int *ids, int n)
{
	dt_aggstate_t **aggs;
	dt_outagg_t *oa;

	if (n < 1 || dt_agg_snapshot_ids(dtp, ids, n) != 0 ||
	    agg_collect(dtp, ids, n, &aggs) != 0)
		return NULL;
	oa = outagg_make(dtp, aggs, n);
	mark_printed(aggs, n);
	free(aggs);
	return oa;
}

void dt_agg_printa_decode(dtrace_hdl_t *dtp, dt_outact_t *a, bool each_alone)
{
	const dt_actdesc_t *act = a->desc;

	if (act->fmt != NULL || !each_alone)
		a->agg = outagg_of_ids(dtp, act->aggs, act->naggs);
	if (!each_alone || act->naggs < 1 ||
	    (act->fmt != NULL && a->agg == NULL))
		return;
	a->each = dt_zalloc(sizeof(*a->each) * (size_t)act->naggs);
	for (int i = 0; i < act->naggs; i++) {
		dt_aggstate_t *as = dt_agg_state(dtp, act->aggs[i]);

		if (as == NULL) {
			dt_set_error(dtp, "no aggregation with id %d",
				     act->aggs[i]);
			return;
		}
		/* the snapshot the format's rows point into is kept */
		if (a->agg == NULL && dt_agg_snapshot_one(dtp, as) != 0)
			return;
		a->each[i] = outagg_make(dtp, &as, 1);
		mark_printed(&as, 1);
	}
}

void dt_agg_printa_free(dt_outact_t *a)
{
	outagg_free(a->agg);
	for (int i = 0; a->each != NULL && i < a->desc->naggs; i++)
		outagg_free(a->each[i]);
	free(a->each);
	a->agg = NULL;
	a->each = NULL;
}

int dt_agg_print(dtrace_hdl_t *dtp, FILE *out, const int *ids, int n)
{
	dt_outagg_t *oa = outagg_of_ids(dtp, ids, n);

	if (oa == NULL)
		return -1;
	fputc('\n', out);
	dt_text_agg_rows(dtp, out, oa);
	outagg_free(oa);
	return 0;
}

int dt_agg_printf(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		  const int *ids, int n)
{
	dt_outagg_t *oa = outagg_of_ids(dtp, ids, n);
	int err;

	if (oa == NULL)
		return -1;
	err = dt_printf_rows(dtp, out, fmt, oa);
	outagg_free(oa);
	return err;
}

/* At exit: each aggregation not printa()ed, through the output. */
int dt_agg_print_all(dtrace_hdl_t *dtp, FILE *out)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	dt_out_t *o = dt_consume_out(dtp);
	int err = dt_agg_snapshot(dtp);

	(void)out;
	for (int i = 0; i < c->naggs; i++) {
		dt_aggstate_t *as = &c->aggs[i];
		dt_outagg_t *oa;

		if (as->desc == NULL || as->printed || as->nents == 0)
			continue;
		oa = outagg_make(dtp, &as, 1);
		o->ops->aggregation(o, oa);
		outagg_free(oa);
	}
	return err;
}

/* One aggregation snapshot and sorted as an output is given it (tests). */
dt_outagg_t *dt_agg_outagg(dtrace_hdl_t *dtp, int id)
{
	dt_aggstate_t *as = dt_agg_state(dtp, id);

	if (as == NULL || dt_agg_snapshot_one(dtp, as) != 0)
		return NULL;
	return outagg_make(dtp, &as, 1);
}

void dt_agg_outagg_free(dt_outagg_t *oa)
{
	outagg_free(oa);
}
