/* SPDX-License-Identifier: MIT */
/*
 * dt_agg_impl.h: what the aggregation files of the consumer share: the
 * table and the snapshot (dt_agg.c), sorting and the printa walk
 * (dt_agg_print.c), clear, trunc and normalize (dt_agg_clear.c).
 */
#ifndef DT_AGG_IMPL_H
#define DT_AGG_IMPL_H

#include "dt_consume_impl.h"
#include "dt_hash.h"

/* dt_agg.c: the table */
dt_aggstate_t *dt_agg_state(dtrace_hdl_t *dtp, int id);
void dt_agg_free_percpu(dt_aggent_t *e);
void dt_agg_free_entry(dt_aggent_t *e);
/* Where an aggregation's values are (dt_rec.h): a hash of CPU slots, an
 * array of CPU slots by PRID, a per-CPU array of one entry (or the
 * mstates); the bytes between two CPUs' values a lookup returns. */
bool dt_agg_in_slots(const dt_aggdesc_t *d);
bool dt_agg_by_prid(const dt_aggdesc_t *d);
bool dt_agg_in_array(const dt_aggdesc_t *d);
size_t dt_agg_cpu_stride(const dt_aggdesc_t *d);
/* The key of entry key of d in its (shared) map (to free). */
uint8_t *dt_agg_map_key(const dt_aggdesc_t *d, const void *key);
/* CPU cpu's value of d kept in its mstate, NULL if it cannot be. */
int64_t *dt_agg_mst_val(dtrace_hdl_t *dtp, const dt_aggdesc_t *d, int cpu);
/* A key's user addresses moved to what they print; whether any moved. */
bool dt_agg_normalize_key(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			  uint8_t *key);
/* Whether d's entries come from more than one map layout or may merge
 * as they are read. */
bool dt_agg_keys_merge(const dt_aggdesc_t *d);
/* The PRID of map key mk of a part by PRID. */
uint32_t dt_agg_prid_of(const dt_aggdesc_t *part, const uint8_t *mk);

/* An index of the entries of an aggregation by key: a table (dt_hash.h)
 * of entry numbers.  All zero is empty; dt_agg_index_fini() frees it. */
typedef struct dt_agg_index {
	dt_htab_t tab;
} dt_agg_index_t;
void dt_agg_index_add(dt_agg_index_t *ix, const dt_aggstate_t *as,
		      size_t ent);
dt_aggent_t *dt_agg_index_find(dt_agg_index_t *ix, dt_aggstate_t *as,
			       const uint8_t *key);
void dt_agg_index_fini(dt_agg_index_t *ix);

/* What dt_agg_walk() calls for each entry: its map key mk (prefix
 * included) in part's map, the key ck the consumer sees, and its value for
 * every CPU where the walk read them with the keys (vals; NULL: not read);
 * non-zero stops the walk. */
typedef int dt_agg_walk_fn(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			const uint8_t *mk, uint8_t *ck, const uint8_t *vals,
			void *arg);
/* Call fn for each entry of d's map, then of its plain part's; of its
 * part by PRID. */
int dt_agg_walk(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
		dt_agg_walk_fn *fn, void *arg);
int dt_agg_walk_byprid(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
		       dt_agg_walk_fn *fn, void *arg);
/* Snapshot one aggregation, or those of ids (0, or -1 after
 * dt_set_error()). */
int dt_agg_snapshot_one(dtrace_hdl_t *dtp, dt_aggstate_t *as);
int dt_agg_snapshot_ids(dtrace_hdl_t *dtp, const int *ids, int n);

/* dt_agg_print.c: sorting */
/* One row of a (possibly joined) printa: a key and a value per agg. */
typedef struct dt_agg_row {
	const uint8_t *key;
	size_t ent;		/* index of the entry in the first aggregation */
	const int64_t **vals;	/* one per aggregation printed; NULL: none */
	const dt_aggent_t **ents;	/* the entries of vals (NULL: none) */
} dt_agg_row_t;
/* The sorted rows of aggs[0..n-1] joined on key; *nrows of them. */
dt_agg_row_t *dt_agg_rows(dtrace_hdl_t *dtp, dt_aggstate_t **aggs, int n,
			  size_t *nrows);
void dt_agg_rows_free(dt_agg_row_t *r, size_t n);

/* d's value src added to dst (min and max: the smaller or larger). */
void dt_agg_merge_val(const dt_aggdesc_t *d, int64_t *dst,
		      const int64_t *src);

/* dt_agg_clear.c: forget the zeroing programs. */
void dt_agg_zero_close(struct dt_consumer *c);
/* What clear() took away, out of as's fresh snapshot; forget it. */
void dt_agg_base_apply(dt_aggstate_t *as);
void dt_agg_base_free(dt_aggstate_t *as);

#endif /* DT_AGG_IMPL_H */
