/* SPDX-License-Identifier: MIT */
/*
 * dt_agg_clear.c: what clear(), trunc() and normalize() do to an
 * aggregation: the consumer's table and the maps both, so that the next
 * snapshot agrees (dt_agg.c).  clear() returns each entry to its initial
 * value, keeping its key, as DTrace does; trunc() keeps the largest (or
 * smallest) n entries by value and deletes the others from the maps;
 * normalize() sets the factor the outputs divide by.
 *
 * clear() is exact for the functions whose values add up (count, sum,
 * avg, stddev, the histograms): it writes no map, but keeps what each key
 * held at the snapshot it clears (the base), which every later snapshot
 * subtracts.  A firing's count is then never lost: the firings' updates
 * are not atomic (each CPU adds to its own slot), so any write of the
 * consumer raced with the firing it overwrote, and the firings between
 * the snapshot printed and the zeroing were dropped.  The snapshot it
 * clears is the one a printa() took for the records read with it
 * (dt_consumer.batch: the same record, or another clause of the same
 * firing), else a new one, so that `printa(@); clear(@);` prints each
 * firing once over the ticks.  min() and max() do not subtract: their
 * entries are zeroed in the maps, in place where the values are in a hash
 * of CPU slots (the zeroing program, dt_aggzero, below).
 *
 * Invariants: an entry that stands for several map keys (keys naming the
 * probe, normalized user addresses) has each of them cleared or deleted
 * (dt_agg_walk()) and one base; a key trunc() removes loses its base; the
 * zeroing programs are loaded before tracing through the session's
 * loader, shown by -S, and closed with the session's programs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dt_agg_impl.h"
#include "dt_bpf.h"
#include "dt_runtime.h"

/* Whether clear() of d subtracts rather than zeroes the maps. */
static bool agg_clear_subtracts(const dt_aggdesc_t *d)
{
	return d->func != DT_AGG_MIN && d->func != DT_AGG_MAX;
}

/* d's initial value over each of the ncpus values at vals (as a lookup
 * of d's map returns them), leaving the rest of a CPU's slot as it is. */
static void agg_init_vals(const dt_aggdesc_t *d, uint8_t *vals, int ncpus)
{
	size_t stride = dt_agg_cpu_stride(d), nw = dt_agg_nwords(d);
	size_t copy = stride < nw * 8 ? stride : nw * 8;
	int64_t *init = dt_zalloc(nw * 8);

	dt_agg_init_val(d, init);
	for (int cpu = 0; cpu < ncpus; cpu++)
		memcpy(vals + (size_t)cpu * stride, init, copy);
	free(init);
}

/* Write the initial value for every CPU of map key mk into d's map. */
static int agg_map_reset_mk(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			    const uint8_t *mk)
{
	int ncpus = dt_agg_ncpus(dtp);
	uint8_t *vals = dt_zalloc(dt_agg_cpu_stride(d) * (size_t)ncpus);
	int err;

	agg_init_vals(d, vals, ncpus);
	err = bpf_map_update_elem(d->map->fd, mk, vals, BPF_EXIST);
	free(vals);
	return err != 0 && errno != ENOENT ? -1 : 0;
}

/* The same for the entry of map key mk of a part by PRID, whose values
 * the walk read (cur): the words "seen" stay, so the entry stays, as a
 * hash's does. */
static int agg_prid_reset(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			  const uint8_t *mk, const uint8_t *cur)
{
	uint32_t prid = dt_agg_prid_of(part, mk);
	uint8_t *vals = dt_zalloc(part->map->vsize);
	int err;

	memcpy(vals, cur, part->map->vsize);
	agg_init_vals(part, vals, dt_agg_ncpus(dtp));
	err = bpf_map_update_elem(part->map->fd, &prid, vals, BPF_EXIST);
	free(vals);
	return err != 0 ? -1 : 0;
}

/* No CPU recorded d (mstflag): trunc() removed its entry. */
static void agg_mst_unflag(dtrace_hdl_t *dtp, const dt_aggdesc_t *d)
{
	for (int cpu = 0; d->mstflag && cpu < dt_agg_ncpus(dtp); cpu++) {
		int64_t *v = dt_agg_mst_val(dtp, d, cpu);
		if (v != NULL)
			v[-1] = 0;
	}
}

/* The same for the entry of key (the consumer's). */
static int agg_map_reset(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			 const void *key)
{
	if (d->mstoff != 0) {
		for (int cpu = 0; cpu < dt_agg_ncpus(dtp); cpu++) {
			int64_t *v = dt_agg_mst_val(dtp, d, cpu);
			if (v != NULL)
				memset(v, 0, d->valsize);
		}
		return 0;
	}
	uint8_t *mk = dt_agg_map_key(d, key);
	int err = agg_map_reset_mk(dtp, d, mk);

	free(mk);
	return err;
}

static int agg_reset_entry(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			   const uint8_t *mk, uint8_t *ck, const uint8_t *vals,
			   void *arg)
{
	(void)ck;
	(void)arg;
	if (dt_agg_by_prid(part))
		agg_prid_reset(dtp, part, mk, vals);
	else
		agg_map_reset_mk(dtp, part, mk);
	return 0;
}

/* The map keys to delete in trunc(): those of no kept entry. */
typedef struct agg_cut {
	dt_aggstate_t *kept;	/* the kept entries, indexed */
	dt_agg_index_t ix;
	uint8_t **mks;
	size_t n;
} agg_cut_t;

/* Whether trunc() keeps the entry of key ck (as read from a map). */
static bool agg_cut_keeps(dtrace_hdl_t *dtp, agg_cut_t *cut, uint8_t *ck)
{
	dt_agg_normalize_key(dtp, cut->kept->desc, ck);
	return dt_agg_index_find(&cut->ix, cut->kept, ck) != NULL;
}

static int agg_cut_entry(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			 const uint8_t *mk, uint8_t *ck, const uint8_t *vals,
			 void *arg)
{
	agg_cut_t *cut = arg;
	size_t ks = DT_AGG_KEYPREFIX + (part->kprobe != NULL ?
					part->mkeysize : part->keysize);

	(void)vals;
	if (agg_cut_keeps(dtp, cut, ck))
		return 0;
	cut->mks = dt_realloc(cut->mks, (cut->n + 1) * sizeof(*cut->mks));
	cut->mks[cut->n] = dt_zalloc(ks);
	memcpy(cut->mks[cut->n++], mk, ks);
	return 0;
}

/* trunc() of an entry of a part by PRID that is not kept: its CPUs'
 * slots zeroed, "seen" included. */
static int agg_cut_prid_entry(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			      const uint8_t *mk, uint8_t *ck,
			      const uint8_t *vals, void *arg)
{
	agg_cut_t *cut = arg;
	uint32_t prid = dt_agg_prid_of(part, mk);

	(void)vals;
	if (agg_cut_keeps(dtp, cut, ck))
		return 0;
	void *zeros = dt_zalloc(part->map->vsize);
	int err = bpf_map_update_elem(part->map->fd, &prid, zeros, BPF_ANY);
	free(zeros);
	return err != 0 ? -errno : 0;
}

/* Delete from the maps of as every entry whose key is not one of the
 * first nkept entries (which are those trunc() keeps): for keys that
 * merge, each entry may have come from several map keys. */
static void agg_cut(dtrace_hdl_t *dtp, dt_aggstate_t *as, size_t nkept)
{
	dt_aggstate_t kept = *as;
	agg_cut_t cut = { .kept = &kept };

	kept.nents = nkept;
	for (size_t i = 0; i < nkept; i++)
		dt_agg_index_add(&cut.ix, &kept, i);
	dt_agg_walk(dtp, as->desc, agg_cut_entry, &cut);
	dt_agg_walk_byprid(dtp, as->desc, agg_cut_prid_entry, &cut);
	for (size_t i = 0; i < cut.n; i++) {
		uint64_t id;

		memcpy(&id, cut.mks[i], sizeof(id));
		bpf_map_delete_elem(id == (uint64_t)as->desc->id ?
				    as->desc->map->fd :
				    as->desc->plain->map->fd, cut.mks[i]);
		free(cut.mks[i]);
	}
	free(cut.mks);
	dt_agg_index_fini(&cut.ix);
}

/*
 * clear() of a hash of CPU slots (dt_cg_agg.c) must zero its entries in
 * place.  bpf_map_update_elem() on a hash links a new element for the key
 * and frees the old one at once, for reuse: a firing that looked the old
 * element up a few instructions earlier then counts in a dead element,
 * or, once it is reused, in another key's.  (A per-CPU hash's update
 * copies into the element in place; so does BPF_F_LOCK on a hash whose
 * value holds a bpf_spin_lock, but the verifier refuses such a map to
 * every tracing program: "tracing progs cannot use bpf_spin_lock yet",
 * 6.18 included.)  So the consumer runs a program of its own with
 * BPF_PROG_TEST_RUN, its context the aggregation's id (8 bytes), that
 * walks the map with bpf_for_each_map_elem and zeroes the value of each
 * entry whose key starts with that id.  It is a raw tracepoint program,
 * attached nowhere: the kernel runs one with BPF_PROG_TEST_RUN as it is
 * (a BPF_PROG_TYPE_SYSCALL program must be sleepable, a flag the loader
 * does not pass).  A count a firing makes between the snapshot and the
 * zeroing is lost, as with a per-CPU hash.
 */
static void agg_zero_emit(dt_as_t *as, dtrace_map_t *map)
{
	int each = dt_as_label(as), skip = dt_as_label(as);

	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R6, DT_R1, 0));
	dt_as_emit(as, DT_STORE(BPF_DW, DT_FP, -8, DT_R6));
	dt_as_load_map(as, DT_R1, map);
	dt_as_ld_func(as, DT_R2, each);
	dt_as_emit(as, DT_MOV64_REG(DT_R3, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R3, -8));
	dt_as_emit(as, DT_MOV64_IMM(DT_R4, 0));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_for_each_map_elem));
	dt_as_emit(as, DT_EXIT());

	/* each(map, key, value, &id): 0, go on */
	dt_as_place(as, each);
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R1, DT_R2, 0));
	dt_as_emit(as, DT_LOAD(BPF_DW, DT_R5, DT_R4, 0));
	dt_as_jump_reg(as, BPF_JNE, DT_R1, DT_R5, skip);
	for (uint32_t off = 0; off + 8 <= map->vsize; off += 8)
		dt_as_emit(as, DT_STORE_IMM(BPF_DW, DT_R3, (int16_t)off, 0));
	dt_as_place(as, skip);
	dt_as_emit(as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_emit(as, DT_EXIT());
}

/* The zeroing program of a map of CPU slots, which the aggregations and
 * plain parts kept in it share (it takes the id): fd -1 when it failed to
 * load.  The consumer owns them. */
struct dt_agg_zero {
	const dtrace_map_t *map;
	int fd;
};

/* The fd of map's zeroing program, loaded at the first use; -1 where the
 * kernel has no bpf_for_each_map_elem (before 5.13): then clear() writes
 * the entries as before, racing with the firings. */
static int agg_zero_prog(dtrace_hdl_t *dtp, dtrace_map_t *map)
{
	struct dt_consumer *c = dt_consumer_get(dtp);

	for (int i = 0; i < c->nzeros; i++)
		if (c->zeros[i].map == map)
			return c->zeros[i].fd;
	dt_as_t as;

	char title[128];

	dt_as_init(&as);
	agg_zero_emit(&as, map);
	dt_as_finish(&as);
	snprintf(title, sizeof(title), "dt_aggzero program of map %s",
		 map->name);
	dt_bpf_prog_show(dtp, title, &as);
	int fd = dt_bpf_prog_load_type(dtp, "dt_aggzero", &as,
				       BPF_PROG_TYPE_RAW_TRACEPOINT, 0);
	if (fd < 0)
		dtp->errmsg[0] = '\0';	/* clear() goes on without it */
	dt_as_fini(&as);
	c->zeros = dt_realloc(c->zeros, sizeof(*c->zeros) *
					(size_t)(c->nzeros + 1));
	c->zeros[c->nzeros++] = (struct dt_agg_zero){ map, fd };
	return fd;
}

/* Forget the zeroing programs: loaded again if the aggregations are set
 * up again.  Their fds are the session's loader's, closed with the
 * session's programs (dt_bpf_fini()). */
void dt_agg_zero_close(struct dt_consumer *c)
{
	free(c->zeros);
	c->zeros = NULL;
	c->nzeros = 0;
}

/* Load part's zeroing program if its entries are in a hash of CPU
 * slots. */
static void agg_zero_load(dtrace_hdl_t *dtp, dt_aggdesc_t *part)
{
	if (part != NULL && !agg_clear_subtracts(part) &&
	    dt_agg_in_slots(part) && part->map->fd >= 0)
		agg_zero_prog(dtp, part->map);
}

/* Zero the entries of part in place; false when they are not in a hash of
 * CPU slots or the program cannot run. */
static bool agg_zero_part(dtrace_hdl_t *dtp, dt_aggdesc_t *part)
{
	if (!dt_agg_in_slots(part) || part->map->fd < 0)
		return false;
	int fd = agg_zero_prog(dtp, part->map);
	uint64_t id = (uint64_t)part->id;
	LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &id,
		    .ctx_size_in = sizeof(id));

	return fd >= 0 && bpf_prog_test_run_opts(fd, &run) == 0;
}

/* Load before tracing the zeroing programs of the maps that a clear() of
 * the program empties, as the clauses' programs are loaded (and shown by
 * -S): the first clear() does not wait for a load. */
void dt_agg_zero_prepare(dtrace_hdl_t *dtp)
{
	for (int c = 0; dtp->clauses != NULL && c < dtp->nclauses; c++) {
		const dt_compiled_clause_t *cl = dtp->clauses[c];

		for (int i = 0; cl != NULL && i < cl->nacts; i++) {
			const dt_actdesc_t *act = &cl->acts[i];

			for (int a = 0; act->kind == DT_ACT_CLEAR &&
					a < act->naggs; a++) {
				dt_aggstate_t *as = dt_agg_state(dtp, act->aggs[a]);

				if (as == NULL)
					continue;
				agg_zero_load(dtp, as->desc);
				agg_zero_load(dtp, as->desc->plain);
			}
		}
	}
}

static bool agg_zero_in_place(dtrace_hdl_t *dtp, dt_aggdesc_t *d)
{
	return agg_zero_part(dtp, d) &&
	       (d->plain == NULL || agg_zero_part(dtp, d->plain));
}

/*
 * The base of clear() (see above): entries by key, indexed.
 */
struct dt_aggbase {
	dt_aggstate_t tab;	/* desc: the aggregation's; its entries */
	dt_agg_index_t ix;
};

/* d's value src taken from dst: the inverse of dt_agg_merge_val() for the
 * functions that subtract. */
static void agg_sub_val(const dt_aggdesc_t *d, int64_t *dst,
			const int64_t *src)
{
	size_t n = dt_agg_nwords(d);

	if (d->func == DT_AGG_STDDEV) {
		unsigned __int128 a = ((unsigned __int128)(uint64_t)dst[3] << 64)
				      | (uint64_t)dst[2];
		unsigned __int128 b = ((unsigned __int128)(uint64_t)src[3] << 64)
				      | (uint64_t)src[2];

		a -= b;
		dst[2] = (int64_t)(uint64_t)a;
		dst[3] = (int64_t)(uint64_t)(a >> 64);
		n = 2;
	}
	for (size_t i = 0; i < n; i++)
		dst[i] = (int64_t)((uint64_t)dst[i] - (uint64_t)src[i]);
}

void dt_agg_base_free(dt_aggstate_t *as)
{
	struct dt_aggbase *b = as->base;

	if (b == NULL)
		return;
	for (size_t i = 0; i < b->tab.nents; i++)
		dt_agg_free_entry(&b->tab.ents[i]);
	free(b->tab.ents);
	dt_agg_index_fini(&b->ix);
	free(b);
	as->base = NULL;
}

/* The base entry of key, made (zero) when make and there is none. */
static dt_aggent_t *agg_base_entry(dt_aggstate_t *as, const uint8_t *key,
				   bool make)
{
	struct dt_aggbase *b = as->base;
	size_t ks = as->desc->keysize;

	if (b == NULL) {
		if (!make)
			return NULL;
		b = as->base = dt_zalloc(sizeof(*b));
		b->tab.desc = as->desc;
	}
	dt_aggent_t *e = dt_agg_index_find(&b->ix, &b->tab, key);
	if (e != NULL || !make)
		return e;
	dt_array_room(b->tab.ents, b->tab.nents, b->tab.cap);
	e = &b->tab.ents[b->tab.nents];
	*e = (dt_aggent_t){ dt_zalloc(ks ? ks : 1),
			    dt_zalloc(dt_agg_nwords(as->desc) * 8), NULL, 0 };
	memcpy(e->key, key, ks);
	dt_agg_index_add(&b->ix, &b->tab, b->tab.nents++);
	return e;
}

/* CPU cpu's value in e (aggpercpu), NULL when it has none. */
static int64_t *agg_cpu_val(const dt_aggent_t *e, int cpu)
{
	return e->percpu != NULL && cpu < e->npercpu ? e->percpu[cpu] : NULL;
}

/* clear() of e: what it holds goes into its base, per CPU too. */
static void agg_base_take(dt_aggstate_t *as, dt_aggent_t *e)
{
	const dt_aggdesc_t *d = as->desc;
	dt_aggent_t *be = agg_base_entry(as, e->key, true);

	dt_agg_merge_val(d, be->val, e->val);
	for (int cpu = 0; cpu < e->npercpu; cpu++) {
		if (e->percpu[cpu] == NULL)
			continue;
		if (be->percpu == NULL) {
			be->percpu = dt_zalloc(sizeof(*be->percpu) *
					       (size_t)e->npercpu);
			be->npercpu = e->npercpu;
		}
		if (cpu >= be->npercpu)
			continue;
		if (be->percpu[cpu] == NULL)
			be->percpu[cpu] = dt_zalloc(dt_agg_nwords(d) * 8);
		dt_agg_merge_val(d, be->percpu[cpu], e->percpu[cpu]);
	}
}

void dt_agg_base_apply(dt_aggstate_t *as)
{
	const dt_aggdesc_t *d = as->desc;

	for (size_t i = 0; as->base != NULL && i < as->nents; i++) {
		dt_aggent_t *e = &as->ents[i];
		const dt_aggent_t *be = agg_base_entry(as, e->key, false);

		if (be == NULL)
			continue;
		agg_sub_val(d, e->val, be->val);
		for (int cpu = 0; cpu < e->npercpu; cpu++) {
			const int64_t *bv = agg_cpu_val(be, cpu);

			if (e->percpu[cpu] == NULL || bv == NULL)
				continue;
			agg_sub_val(d, e->percpu[cpu], bv);
			/* nothing since the clear: no line for it */
			if (!dt_agg_recorded(d, e->percpu[cpu])) {
				free(e->percpu[cpu]);
				e->percpu[cpu] = NULL;
			}
		}
	}
}

/* trunc(): the keys it removed lose their base (their map values went
 * too); those of the entries kept, as->ents[0..nents), keep theirs. */
static void agg_base_keep_kept(dt_aggstate_t *as)
{
	struct dt_aggbase *old = as->base;

	if (old == NULL)
		return;
	as->base = NULL;
	for (size_t i = 0; i < as->nents; i++) {
		dt_aggent_t *be = dt_agg_index_find(&old->ix, &old->tab,
						    as->ents[i].key);
		if (be != NULL)
			agg_base_take(as, be);
	}
	dt_aggstate_t gone = { .base = old };
	dt_agg_base_free(&gone);
}

/* Whether as's entries are a snapshot taken for the records being read
 * (a printa()'s of this record, or of one read with it). */
static bool agg_snapshot_current(dtrace_hdl_t *dtp, const dt_aggstate_t *as)
{
	uint64_t batch = dt_consumer_get(dtp)->batch;

	return batch != 0 && as->snap_batch == batch;
}

/* clear() by subtraction: the entries' values become their bases. */
static void agg_clear_subtract(dt_aggstate_t *as)
{
	for (size_t i = 0; i < as->nents; i++) {
		agg_base_take(as, &as->ents[i]);
		dt_agg_init_val(as->desc, as->ents[i].val);
		dt_agg_free_percpu(&as->ents[i]);
	}
}

int dt_agg_clear(dtrace_hdl_t *dtp, int id)
{
	dt_aggstate_t *as = dt_agg_state(dtp, id);

	if (as == NULL || (!agg_snapshot_current(dtp, as) &&
			   dt_agg_snapshot_one(dtp, as) != 0))
		return -1;
	if (agg_clear_subtracts(as->desc)) {
		agg_clear_subtract(as);
		return 0;
	}
	bool in_place = agg_zero_in_place(dtp, as->desc);
	bool by_walk = as->desc->map != NULL && dt_agg_keys_merge(as->desc);
	for (size_t i = 0; i < as->nents; i++) {
		dt_agg_init_val(as->desc, as->ents[i].val);
		dt_agg_free_percpu(&as->ents[i]);
		if ((as->desc->map != NULL || as->desc->mstoff != 0) &&
		    !by_walk && !in_place)
			agg_map_reset(dtp, as->desc, as->ents[i].key);
	}
	/* an entry may stand for several map keys */
	if (by_walk && !in_place)
		dt_agg_walk(dtp, as->desc, agg_reset_entry, NULL);
	dt_agg_walk_byprid(dtp, as->desc, agg_reset_entry, NULL);
	return 0;
}

int dt_agg_trunc(dtrace_hdl_t *dtp, int id, int64_t n, bool all)
{
	dt_aggstate_t *as = dt_agg_state(dtp, id);
	dt_options_t saved;
	dt_agg_row_t *rows;
	size_t nrows = 0, keep;
	dt_aggent_t *kept;

	if (as == NULL || dt_agg_snapshot_one(dtp, as) != 0)
		return -1;
	/* trunc orders by value alone, whatever the sorting options */
	saved = dtp->opt;
	dtp->opt.aggsortkey = false;
	dtp->opt.aggsortrev = n >= 0;	/* keep the largest n */
	dtp->opt.aggsortkeypos = 0;
	rows = dt_agg_rows(dtp, &as, 1, &nrows);
	dtp->opt = saved;
	keep = all ? 0 : (size_t)(n < 0 ? -n : n);
	kept = dt_zalloc(sizeof(*kept) * (nrows ? nrows : 1));
	bool by_walk = as->desc->map != NULL && dt_agg_keys_merge(as->desc);
	for (size_t i = 0; i < nrows; i++) {
		dt_aggent_t *e = &as->ents[rows[i].ent];

		if (i < keep) {
			kept[i] = *e;
			continue;
		}
		if (dt_agg_in_array(as->desc)) {
			agg_map_reset(dtp, as->desc, e->key);
			agg_mst_unflag(dtp, as->desc);
			as->array_kept = false;
		} else if (as->desc->map != NULL && !by_walk) {
			uint8_t *mk = dt_agg_map_key(as->desc, e->key);
			bpf_map_delete_elem(as->desc->map->fd, mk);
			free(mk);
		}
		dt_agg_free_entry(e);
	}
	dt_agg_rows_free(rows, nrows);
	free(as->ents);
	as->ents = kept;
	as->nents = keep < nrows ? keep : nrows;
	as->cap = nrows ? nrows : 1;
	if (by_walk)
		agg_cut(dtp, as, as->nents);
	agg_base_keep_kept(as);
	return 0;
}

int dt_agg_normalize(dtrace_hdl_t *dtp, int id, uint64_t normal)
{
	dt_aggstate_t *as = dt_agg_state(dtp, id);

	if (as == NULL)
		return -1;
	as->normal = normal ? normal : 1;
	return 0;
}
