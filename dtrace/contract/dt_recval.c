/* SPDX-License-Identifier: MIT */
/*
 * dt_recval.c: the values records and aggregations hold, read as the
 * code generator laid them out (dt_rec.h): an integer record with the sign
 * of its type, a fault's name, and an aggregation's value words: how many
 * a function has, what a histogram's buckets hold (their bounds), whether a
 * CPU recorded anything, the standard deviation.
 *
 * The consumer (snapshot, merge, sorting, samples it aggregates itself)
 * and the outputs (text and JSON) both read values this way; the layout of
 * each function's words is described at the top of consumer/dt_agg.c.
 * dt_llquantize_bucket() is the reference the code generator's llquantize
 * follows (dt_cg_agg.c), in Oracle DTrace's layout.
 *
 * Invariants: pure functions of a descriptor and bytes; nothing here reads
 * outside what the descriptor says.
 */
#include <stdbool.h>
#include <string.h>

#include "dt_recval.h"

int64_t dt_agg_ipow(int64_t base, int64_t exp)
{
	int64_t r = 1;

	while (exp-- > 0) {
		if (r > INT64_MAX / (base ? base : 1))
			return INT64_MAX;
		r *= base;
	}
	return r;
}

/*
 * llquantize(factor, low, high, nsteps), laid out as Oracle DTrace lays
 * it out: each order of magnitude from low to high has K = nsteps -
 * nsteps / factor bins of width factor^(order+1) / nsteps; the positive
 * values' bins follow bin0 (abs(v) < factor^low), the negative values'
 * mirror them below it, and the two ends hold what lies beyond
 * factor^(high+1) either way.  With low 0 and nsteps > factor, order 0
 * has one bin per value 1 .. factor-1, nsteps / factor apart: the bins
 * between them (DTrace's "ghost bins") stay empty.
 */
static bool llq_valid(int64_t factor, int64_t low, int64_t high,
		      int64_t nsteps)
{
	return factor >= 2 && nsteps >= 1 && low >= 0 && low <= high &&
	       high - low < 1000;
}

static int64_t llq_nord(int64_t factor, int64_t low, int64_t high,
			int64_t nsteps)
{
	return (high - low + 1) * (nsteps - nsteps / factor);
}

int dt_llquantize_nbuckets(int64_t factor, int64_t low, int64_t high,
			   int64_t nsteps)
{
	if (!llq_valid(factor, low, high, nsteps))
		return 0;
	return (int)(2 * llq_nord(factor, low, high, nsteps) + 3);
}

int dt_llquantize_bin0(int64_t factor, int64_t low, int64_t high,
		       int64_t nsteps)
{
	return (int)llq_nord(factor, low, high, nsteps) + 1;
}

/* The bin of a magnitude a (0 for a < factor^low) counted from bin0. */
static int64_t llq_pos(int64_t factor, int64_t low, int64_t high,
		       int64_t nsteps, uint64_t a)
{
	int64_t sf = nsteps / factor, k = nsteps - sf, mag = low;
	uint64_t lo = (uint64_t)dt_agg_ipow(factor, low), top, scale;

	if (a < lo)
		return 0;
	if (a >= (uint64_t)dt_agg_ipow(factor, high + 1))
		return llq_nord(factor, low, high, nsteps) + 1;
	for (top = lo * (uint64_t)factor; a >= top; top *= (uint64_t)factor)
		mag++;
	if (low == 0 && nsteps > factor && mag == 0)
		return 1 + (int64_t)(a - 1) * sf;
	scale = top / (uint64_t)nsteps;
	return 1 + (mag - low) * k + (int64_t)(a / (scale ? scale : 1)) - sf;
}

int dt_llquantize_bucket(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int64_t bin0 = dt_llquantize_bin0(factor, low, high, nsteps);
	int64_t i = llq_pos(factor, low, high, nsteps, a);

	return (int)(v < 0 ? bin0 - i : bin0 + i);
}

/* Whether bin i from bin0 (1 .. nord) starts a range of values (a ghost
 * bin of order 0 does not). */
bool dt_llquantize_labelled(int64_t factor, int64_t low, int64_t nsteps,
			    int64_t i)
{
	int64_t sf = nsteps / factor;

	if (low == 0 && nsteps > factor && i <= nsteps - sf)
		return (i - 1) % sf == 0;
	return true;
}

int64_t dt_llquantize_lo(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t i)
{
	int64_t sf = nsteps / factor, k = nsteps - sf, mag, scale;

	if (i <= 0)
		return 0;
	if (i > llq_nord(factor, low, high, nsteps))
		return dt_agg_ipow(factor, high + 1);
	if (low == 0 && nsteps > factor && i <= k)
		return 1 + (i - 1 + sf - 1) / sf;	/* ghost: the next */
	mag = low + (i - 1) / k;
	scale = dt_agg_ipow(factor, mag + 1) / nsteps;
	return (sf + (i - 1) % k) * scale;
}

int dt_agg_lq_levels(const dt_aggdesc_t *d)
{
	int64_t step = d->params[2] > 0 ? d->params[2] : 1;
	int64_t levels = (d->params[1] - d->params[0]) / step;

	return levels > 0 && levels < 65536 ? (int)levels : 0;
}

size_t dt_agg_nwords(const dt_aggdesc_t *d)
{
	switch (d->func) {
	case DT_AGG_AVG:	return 2;
	case DT_AGG_MIN:	return 2;
	case DT_AGG_MAX:	return 2;
	case DT_AGG_STDDEV:	return 4;
	case DT_AGG_QUANTIZE:	return DT_QUANTIZE_NBUCKETS;
	case DT_AGG_LQUANTIZE:	return (size_t)dt_agg_lq_levels(d) + 2;
	case DT_AGG_LLQUANTIZE:
		return (size_t)dt_llquantize_nbuckets(d->params[0],
			d->params[1], d->params[2], d->params[3]);
	default:		return 1;
	}
}

/* The value an entry starts from (and returns to after clear()): zeros
 * for every function (min and max: count 0, nothing recorded, which
 * prints as 0). */
void dt_agg_init_val(const dt_aggdesc_t *d, int64_t *val)
{
	memset(val, 0, dt_agg_nwords(d) * sizeof(int64_t));
}

bool dt_agg_recorded(const dt_aggdesc_t *d, const int64_t *val)
{
	size_t n = dt_agg_nwords(d);

	switch (d->func) {
	case DT_AGG_MIN:
	case DT_AGG_MAX:
		return val[1] != 0;	/* how many values it recorded */
	case DT_AGG_AVG:
	case DT_AGG_STDDEV:
		return val[0] != 0;	/* count */
	default:	/* count, sum, buckets: all zeros read as nothing */
		for (size_t i = 0; i < n; i++)
			if (val[i] != 0)
				return true;
		return false;
	}
}

static unsigned __int128 isqrt128(unsigned __int128 n)
{
	unsigned __int128 r = 0, bit = (unsigned __int128)1 << 126;

	while (bit > n)
		bit >>= 2;
	while (bit != 0) {
		if (n >= r + bit) {
			n -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* sqrt(avg(x^2) - avg(x)^2), in integers, as DTrace computes it. */
uint64_t dt_agg_stddev(const int64_t *val, uint64_t normal)
{
	unsigned __int128 sq = ((unsigned __int128)(uint64_t)val[3] << 64) |
			       (uint64_t)val[2];
	unsigned __int128 avgsq, sqavg;
	int64_t avg;

	if (val[0] == 0)
		return 0;
	if (normal == 0)
		normal = 1;
	avgsq = sq / normal / (uint64_t)val[0];
	avg = val[1] / (int64_t)normal / val[0];
	if (avg < 0)
		avg = -avg;
	sqavg = (unsigned __int128)(uint64_t)avg * (uint64_t)avg;
	if (sqavg > avgsq)
		return 0;
	return (uint64_t)isqrt128(avgsq - sqavg);
}

/* quantize: bucket 63 + 1 + k starts at 2^k, bucket 63 - 1 - k at
 * -(2^(k+1) - 1), as DTrace counts (-5 in -4's); bucket 0 also holds
 * INT64_MIN. */
static int64_t quantize_bucket_min(int bin)
{
	if (bin == 0)
		return INT64_MIN;
	if (bin == DT_QUANTIZE_ZERO)
		return 0;
	if (bin > DT_QUANTIZE_ZERO)
		return (int64_t)(1ull << (bin - DT_QUANTIZE_ZERO - 1));
	return -(int64_t)((1ull << (DT_QUANTIZE_ZERO - bin)) - 1);
}

/* The least value of llquantize bin `bin` (dt_llquantize_bucket()). */
static int64_t llq_bucket_min(const dt_aggdesc_t *d, int bin)
{
	int64_t f = d->params[0], l = d->params[1], h = d->params[2];
	int64_t s = d->params[3];
	int64_t bin0 = dt_llquantize_bin0(f, l, h, s);

	if (bin == 0)
		return INT64_MIN;
	if (bin >= bin0)
		return bin == bin0 ? 1 - dt_agg_ipow(f, l) :
		       dt_llquantize_lo(f, l, h, s, bin - bin0);
	return 1 - dt_llquantize_lo(f, l, h, s, bin0 - bin + 1);
}

int64_t dt_agg_bucket_min(const dt_aggdesc_t *d, int bin)
{
	switch (d->func) {
	case DT_AGG_QUANTIZE:
		return quantize_bucket_min(bin);
	case DT_AGG_LQUANTIZE:
		if (bin == 0)
			return INT64_MIN;
		return d->params[0] + (int64_t)(bin - 1) * d->params[2];
	case DT_AGG_LLQUANTIZE:
		return llq_bucket_min(d, bin);
	default:
		return 0;
	}
}

int64_t dt_agg_bucket_max(const dt_aggdesc_t *d, int bin)
{
	if (bin >= (int)dt_agg_nwords(d) - 1)
		return INT64_MAX;
	return dt_agg_bucket_min(d, bin + 1) - 1;
}

const char *dt_fault_str(uint32_t fault)
{
	switch (fault) {
	case DT_FAULT_BADADDR:		return "invalid address";
	case DT_FAULT_BADALIGN:		return "invalid alignment";
	case DT_FAULT_ILLOP:		return "illegal operation";
	case DT_FAULT_DIVZERO:		return "divide-by-zero";
	case DT_FAULT_NOSCRATCH:	return "out of scratch space";
	case DT_FAULT_KPRIV:		return "invalid kernel access";
	case DT_FAULT_UPRIV:		return "invalid user access";
	case DT_FAULT_TUPOFLOW:		return "tuple stack overflow";
	case DT_FAULT_BADSTACK:		return "bad stack";
	case DT_FAULT_STRSIZE:		return "string too long";
	case DT_FAULT_DYNVAR:		return "dynamic variable drop";
	default:			return "unknown fault";
	}
}

int64_t dt_rec_int(const dt_recdesc_t *rec, const uint8_t *p)
{
	switch (rec->size) {
	case 1:
		return rec->is_signed ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
	case 2: {
		uint16_t v;
		memcpy(&v, p, 2);
		return rec->is_signed ? (int64_t)(int16_t)v : (int64_t)v;
	}
	case 4: {
		uint32_t v;
		memcpy(&v, p, 4);
		return rec->is_signed ? (int64_t)(int32_t)v : (int64_t)v;
	}
	default: {
		int64_t v = 0;
		memcpy(&v, p, rec->size < 8 ? rec->size : 8);
		return v;
	}
	}
}

bool dt_rec_is_stack(const dt_recdesc_t *rec)
{
	return rec->kind == DT_RK_USTACK || rec->kind == DT_RK_KSTACK ||
	       rec->kind == DT_RK_USAMPLE;
}
