/* SPDX-License-Identifier: MIT */
/*
 * dt_recval.h: the values of records and aggregations (see dt_recval.c).
 */
#ifndef DT_RECVAL_H
#define DT_RECVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dt_progdesc.h"

/* An integer record, sign-extended when its type is signed. */
int64_t dt_rec_int(const dt_recdesc_t *rec, const uint8_t *p);
/* Whether a record is a stack (ustack(), stack(), a sampled user stack). */
bool dt_rec_is_stack(const dt_recdesc_t *rec);
/* DTrace's name of a run-time fault ("invalid address"). */
const char *dt_fault_str(uint32_t fault);

/* Number of int64 words of an aggregation's value. */
size_t dt_agg_nwords(const dt_aggdesc_t *desc);
/* The value an entry starts from (and returns to after clear()): zeros
 * (min and max: nothing recorded, which prints as 0). */
void dt_agg_init_val(const dt_aggdesc_t *desc, int64_t *val);
/* Whether a CPU's value of one function holds anything recorded. */
bool dt_agg_recorded(const dt_aggdesc_t *desc, const int64_t *val);
/* stddev as DTrace computes it. */
uint64_t dt_agg_stddev(const int64_t *val, uint64_t normal);
/* base^exp, INT64_MAX when it overflows. */
int64_t dt_agg_ipow(int64_t base, int64_t exp);
/* lquantize's levels: (high - low) / step, 0 for absurd parameters. */
int dt_agg_lq_levels(const dt_aggdesc_t *desc);
/* llquantize, laid out as Oracle DTrace lays it out (dt_recval.c): the
 * bucket of value v (what BPF must compute), the number of buckets (0 for
 * absurd parameters) and bin0, the bucket of abs(v) < factor^low; bin i
 * above bin0 (and i below it, negated) starts at dt_llquantize_lo(i),
 * unless it is a ghost bin (!dt_llquantize_labelled(i)), which holds
 * nothing. */
int dt_llquantize_bucket(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t v);
int dt_llquantize_nbuckets(int64_t factor, int64_t low, int64_t high,
			   int64_t nsteps);
int dt_llquantize_bin0(int64_t factor, int64_t low, int64_t high,
		       int64_t nsteps);
int64_t dt_llquantize_lo(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t i);
bool dt_llquantize_labelled(int64_t factor, int64_t low, int64_t nsteps,
			    int64_t i);
/* Inclusive bounds of histogram bucket `bin` (quantize, lquantize,
 * llquantize): the first bucket starts at INT64_MIN, the last ends at
 * INT64_MAX. */
int64_t dt_agg_bucket_min(const dt_aggdesc_t *d, int bin);
int64_t dt_agg_bucket_max(const dt_aggdesc_t *d, int bin);

#endif /* DT_RECVAL_H */
