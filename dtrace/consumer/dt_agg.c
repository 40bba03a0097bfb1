/* SPDX-License-Identifier: MIT */
/*
 * dt_agg.c: the consumer's side of aggregations: the table, the snapshot
 * of the BPF maps with the CPUs merged, and the samples the consumer
 * aggregates itself.  Sorting and the printa walk are dt_agg_print.c's,
 * clear, trunc and normalize dt_agg_clear.c's, the printing the output's
 * (output/dt_text_agg.c, dt_json.c), the value words' layout
 * contract/dt_recval.c's.
 *
 * Each aggregation is a hash keyed on its key tuple
 * (dt_rec.h), whose keys naming the probe are expanded here into the
 * names (agg_key_expand()); one without keys is in each CPU's mstate,
 * read through the map's mapping (dt_agg_mst_val()), or a PERCPU_ARRAY.  A
 * lookup returns one value per possible CPU, each rounded up to 8 bytes,
 * or in a slot of DT_AGG_SLOT bytes in a hash of CPU slots (dt_rec.h;
 * dt_agg_cpu_stride()).
 * The value is a run of int64 words whose meaning depends on the
 * aggregating function:
 *
 *   count		[0] count
 *   sum		[0] the value
 *   min, max		[0] the value, [1] how many values this CPU recorded
 *			(0: none, and [0] means nothing: an entry one CPU
 *			created reads as zeros on the others)
 *   avg		[0] count, [1] sum
 *   stddev		[0] count, [1] sum, [2] sum of squares low 64 bits,
 *			[3] high 64 bits
 *   quantize		127 buckets; bucket 63 counts 0, bucket 63 + 1 + k
 *			counts v in [2^k, 2^(k+1)), bucket 63 - 1 - k counts
 *			v in (-2^(k+1), -2^k]; INT64_MIN goes to bucket 0
 *   lquantize(low, high, step)   levels = (high - low) / step; levels + 2
 *			buckets: [0] v < low, [levels + 1] v >= low +
 *			levels * step, else [1 + (v - low) / step]
 *   llquantize(factor, low, high, nsteps)  as Oracle DTrace lays it
 *			out: bin0 holds abs(v) < factor^low; above it, for
 *			each order o from low to high, nsteps - nsteps /
 *			factor bins of [factor^o, factor^(o+1)) in steps of
 *			factor^(o+1) / nsteps, then v >= factor^(high+1);
 *			below it the same for negative values, mirrored.
 *			dt_llquantize_bucket() (contract/dt_recval.c) is the
 *			reference the code generator follows.
 *
 * -x aggpercpu: the snapshot also keeps, per entry, the value of each CPU
 * that recorded something in it (dt_agg_recorded(): a non-zero count, or
 * any non-zero word for count, sum and the histograms).  The default
 * printing then follows each row with one line per such CPU
 * (output/dt_text_agg.c), its own avg, min, max or stddev under the
 * total.  For example:
 *
 *	  profile-997                                          598
 *	    [CPU 0]                                            299
 *	    [CPU 1]                                            299
 *
 * printa() with a format string prints the totals only.  In JSON each
 * entry gets "percpu": [{"cpu": N, and the entry's value fields}].
 *
 * Invariants: the consumer's table (dtp->cons->aggs) holds the merged
 * entries of the last snapshot; an aggregation without a map (unit tests)
 * keeps the entries it was given.  Printing never changes the entries;
 * clear and trunc change both the table and the map, so that the next
 * snapshot agrees.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dt_agg_impl.h"
#include "dt_bpf.h"
#include "dt_runtime.h"

/* --- layout --- */

void dt_agg_merge_val(const dt_aggdesc_t *d, int64_t *dst,
		      const int64_t *src)
{
	size_t i, n = dt_agg_nwords(d);

	switch (d->func) {
	case DT_AGG_MIN:
	case DT_AGG_MAX:
		if (src[1] == 0)
			break;		/* nothing recorded there */
		if (dst[1] == 0 || (d->func == DT_AGG_MIN ? src[0] < dst[0]
						       : src[0] > dst[0]))
			dst[0] = src[0];
		dst[1] += src[1];
		break;
	case DT_AGG_STDDEV: {
		unsigned __int128 a = ((unsigned __int128)(uint64_t)dst[3] << 64)
				      | (uint64_t)dst[2];
		unsigned __int128 b = ((unsigned __int128)(uint64_t)src[3] << 64)
				      | (uint64_t)src[2];

		dst[0] += src[0];
		dst[1] += src[1];
		a += b;
		dst[2] = (int64_t)(uint64_t)a;
		dst[3] = (int64_t)(uint64_t)(a >> 64);
		break;
	}
	default:	/* counts, sums and buckets add */
		for (i = 0; i < n; i++)
			dst[i] = (int64_t)((uint64_t)dst[i] + (uint64_t)src[i]);
		break;
	}
}

/* --- the table --- */

dt_aggstate_t *dt_agg_state(dtrace_hdl_t *dtp, int id)
{
	struct dt_consumer *c = dt_consumer_get(dtp);

	if (c->aggs == NULL)
		dt_agg_setup(dtp, NULL, 0);
	if (id < 0 || id >= c->naggs || c->aggs[id].desc == NULL)
		return NULL;
	return &c->aggs[id];
}

int dt_agg_setup(dtrace_hdl_t *dtp, dt_aggdesc_t **descs, int n)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	int i;

	dt_agg_fini(dtp);
	if (descs == NULL)
		n = dt_pd_naggs(dtp);
	c->naggs = n;
	c->aggs = dt_zalloc(sizeof(dt_aggstate_t) * (size_t)(n > 0 ? n : 1));
	for (i = 0; i < n; i++) {
		c->aggs[i].desc = descs != NULL ? descs[i] : dt_pd_agg(dtp, i);
		c->aggs[i].normal = 1;
	}
	return 0;
}

/* Forget an entry's per-CPU values (aggpercpu). */
void dt_agg_free_percpu(dt_aggent_t *e)
{
	for (int cpu = 0; cpu < e->npercpu; cpu++)
		free(e->percpu[cpu]);
	free(e->percpu);
	e->percpu = NULL;
	e->npercpu = 0;
}

void dt_agg_free_entry(dt_aggent_t *e)
{
	free(e->key);
	free(e->val);
	dt_agg_free_percpu(e);
}

static void agg_free_entries(dt_aggstate_t *as)
{
	for (size_t i = 0; i < as->nents; i++)
		dt_agg_free_entry(&as->ents[i]);
	as->nents = 0;
}


void dt_agg_fini(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dtp->cons;
	int i;

	if (c == NULL || c->aggs == NULL)
		return;
	dt_agg_zero_close(c);
	for (i = 0; i < c->naggs; i++) {
		agg_free_entries(&c->aggs[i]);
		free(c->aggs[i].ents);
		dt_agg_base_free(&c->aggs[i]);
	}
	free(c->aggs);
	c->aggs = NULL;
	c->naggs = 0;
	free(c->pnames);
	c->pnames = NULL;
	if (c->mst != NULL)
		munmap(c->mst, c->mst_len);
	c->mst = NULL;
}

static dt_aggent_t *agg_append(dt_aggstate_t *as, const void *key)
{
	dt_aggent_t *e;
	size_t ks = as->desc->keysize;

	dt_array_room(as->ents, as->nents, as->cap);
	e = &as->ents[as->nents++];
	e->key = dt_zalloc(ks ? ks : 1);
	if (ks)
		memcpy(e->key, key, ks);
	e->val = dt_zalloc(dt_agg_nwords(as->desc) * sizeof(int64_t));
	e->percpu = NULL;
	e->npercpu = 0;
	dt_agg_init_val(as->desc, e->val);
	return e;
}

/* The entry of key, when it has one already. */
static dt_aggent_t *agg_find(dt_aggstate_t *as, const void *key)
{
	size_t ks = as->desc->keysize;

	for (size_t i = 0; i < as->nents; i++)
		if (ks == 0 || memcmp(as->ents[i].key, key, ks) == 0)
			return &as->ents[i];
	return NULL;
}

void dt_agg_merge(dtrace_hdl_t *dtp, int id, const void *key,
		  const int64_t *val)
{
	dt_aggstate_t *as = dt_agg_state(dtp, id);
	dt_aggent_t *e;

	if (as == NULL)
		return;
	e = agg_find(as, key);
	if (e == NULL)
		e = agg_append(as, key);
	dt_agg_merge_val(as->desc, e->val, val);
}

/* --- per-CPU values (aggpercpu) --- */

/* Keep a copy of CPU cpu's value in e, in an array of ncpus slots. */
static void agg_set_cpu(const dt_aggdesc_t *d, dt_aggent_t *e, int cpu,
			int ncpus, const int64_t *val)
{
	size_t bytes = dt_agg_nwords(d) * sizeof(int64_t);

	if (e->percpu == NULL) {
		e->percpu = dt_zalloc(sizeof(*e->percpu) * (size_t)ncpus);
		e->npercpu = ncpus;
	}
	if (cpu < 0 || cpu >= e->npercpu)
		return;
	if (e->percpu[cpu] == NULL)
		e->percpu[cpu] = dt_zalloc(bytes);
	memcpy(e->percpu[cpu], val, bytes);
}

void dt_agg_merge_cpu(dtrace_hdl_t *dtp, int id, int cpu, const void *key,
		      const int64_t *val)
{
	dt_aggstate_t *as = dt_agg_state(dtp, id);
	dt_aggent_t *e = as != NULL ? agg_find(as, key) : NULL;

	if (e != NULL)
		agg_set_cpu(as->desc, e, cpu, dt_agg_ncpus(dtp), val);
}

/* --- snapshot --- */

int dt_agg_ncpus(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dt_consumer_get(dtp);

	if (c->ncpus <= 0) {
		c->ncpus = libbpf_num_possible_cpus();
		if (c->ncpus <= 0)
			c->ncpus = 1;
	}
	return c->ncpus;
}

/* Whether d's map is a hash of CPU slots (dt_rec.h, DT_AGG_SLOT), not a
 * per-CPU map. */
bool dt_agg_in_slots(const dt_aggdesc_t *d)
{
	return d->map != NULL && d->map->type == BPF_MAP_TYPE_HASH;
}

/* Whether d is a part by PRID (dt_rec.h): an array of CPU slots indexed
 * by PRID. */
bool dt_agg_by_prid(const dt_aggdesc_t *d)
{
	return d->map != NULL && d->map->type == BPF_MAP_TYPE_ARRAY;
}

/* The bytes between two CPUs' values in what a lookup of d's map returns:
 * CPU slots' (a hash's or an array's by PRID), else a per-CPU map's (the
 * value rounded up to 8 bytes). */
size_t dt_agg_cpu_stride(const dt_aggdesc_t *d)
{
	if (dt_agg_in_slots(d) || dt_agg_by_prid(d))
		return DT_AGG_SLOT;

	size_t vs = d->valsize ? d->valsize : dt_agg_nwords(d) * 8;

	return (vs + 7) & ~(size_t)7;
}

/* Move the ufunc/usym/umod keys of a key read from the map to what they
 * print (dt_usym_normalize()); returns whether any changed, so that the
 * entry may merge with another. */
bool dt_agg_normalize_key(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			  uint8_t *key)
{
	bool changed = false;

	for (int k = 0; k < d->nkeys; k++)
		if (dt_usym_normalize(dtp, &d->keys[k], key + d->keys[k].offset))
			changed = true;
	return changed;
}

/* Merge the per-CPU values of one key read from the map into e. */
static void agg_merge_percpu(dt_aggstate_t *as, dt_aggent_t *e,
			     const uint8_t *vals, int ncpus, bool keep)
{
	size_t stride = dt_agg_cpu_stride(as->desc);
	size_t nw = dt_agg_nwords(as->desc);
	int64_t *tmp = dt_zalloc(nw * sizeof(int64_t));
	size_t copy = stride < nw * 8 ? stride : nw * 8;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		dt_agg_init_val(as->desc, tmp);
		memcpy(tmp, vals + (size_t)cpu * stride, copy);
		dt_agg_merge_val(as->desc, e->val, tmp);
		if (keep && dt_agg_recorded(as->desc, tmp))
			agg_set_cpu(as->desc, e, cpu, ncpus, tmp);
	}
	free(tmp);
}

/*
 * An index of the entries of an aggregation by key, while map keys may
 * merge into one entry (keys naming the probe, normalized user
 * addresses): entry numbers in a table, compared through the key they
 * are looked up with, which carries the entries.
 */
typedef struct agg_index_key {
	const dt_aggstate_t *as;
	const uint8_t *key;
} agg_index_key_t;

static bool agg_index_eq(const void *elem, const void *key)
{
	const agg_index_key_t *k = key;
	size_t ent = *(const size_t *)elem;

	return memcmp(k->as->ents[ent].key, k->key, k->as->desc->keysize) == 0;
}

static uint64_t agg_key_hash(const dt_aggstate_t *as, const uint8_t *key)
{
	return dt_hash_bytes(DT_HASH_INIT, key, as->desc->keysize);
}

void dt_agg_index_add(dt_agg_index_t *ix, const dt_aggstate_t *as,
		      size_t ent)
{
	agg_index_key_t k = { as, as->ents[ent].key };

	if (ix->tab.esize == 0) {
		dt_htab_init(&ix->tab, sizeof(size_t), agg_index_eq);
		dt_htab_nofail(&ix->tab);
	}
	*(size_t *)dt_htab_insert(&ix->tab, agg_key_hash(as, k.key), &k,
				  NULL) = ent;
}

dt_aggent_t *dt_agg_index_find(dt_agg_index_t *ix, dt_aggstate_t *as,
			       const uint8_t *key)
{
	agg_index_key_t k = { as, key };
	const size_t *ent = ix->tab.esize == 0 ? NULL :
			    dt_htab_find(&ix->tab, agg_key_hash(as, key), &k);

	return ent != NULL ? &as->ents[*ent] : NULL;
}

void dt_agg_index_fini(dt_agg_index_t *ix)
{
	dt_htab_fini(&ix->tab);
}

/* Whether d lives in a per-CPU array of one entry (no keys; dt_cg_agg.c):
 * its key is 0, its entry always there, all zeros until it records. */
bool dt_agg_in_array(const dt_aggdesc_t *d)
{
	return d->mstoff != 0 ||
	       (d->map != NULL && d->map->type == BPF_MAP_TYPE_PERCPU_ARRAY);
}

/* The key of entry key of d in its (shared) map: the id, then the key;
 * 0 in an array. */
uint8_t *dt_agg_map_key(const dt_aggdesc_t *d, const void *key)
{
	uint8_t *mk = dt_zalloc(DT_AGG_KEYPREFIX + d->keysize);
	uint64_t id = (uint64_t)d->id;

	if (dt_agg_in_array(d))
		return mk;
	memcpy(mk, &id, sizeof(id));
	memcpy(mk + DT_AGG_KEYPREFIX, key, d->keysize);
	return mk;
}

/* Whether the map key mk belongs to the aggregation d. */
static bool agg_map_owns(const dt_aggdesc_t *d, const uint8_t *mk)
{
	uint64_t id;

	memcpy(&id, mk, sizeof(id));
	return id == (uint64_t)d->id;
}

/* Whether any of the ncpus values at vals recorded something. */
static bool agg_any_recorded(const dt_aggdesc_t *d, const uint8_t *vals,
			     int ncpus)
{
	size_t stride = dt_agg_cpu_stride(d), nw = dt_agg_nwords(d);
	size_t copy = stride < nw * 8 ? stride : nw * 8;
	int64_t *tmp = dt_zalloc(nw * sizeof(int64_t));
	bool any = false;

	for (int cpu = 0; cpu < ncpus && !any; cpu++) {
		dt_agg_init_val(d, tmp);
		memcpy(tmp, vals + (size_t)cpu * stride, copy);
		any = dt_agg_recorded(d, tmp);
	}
	free(tmp);
	return any;
}

/* CPU cpu's value of d, kept in its mstate (d->mstoff): in the mapping
 * of the "mstate" map, made at the first use; NULL if it cannot be. */
int64_t *dt_agg_mst_val(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			int cpu)
{
	struct dt_consumer *c = dt_consumer_get(dtp);

	if (c->mst == NULL) {
		dtrace_map_t *m = dt_bpf_map_find(dtp, "mstate");
		size_t page = (size_t)sysconf(_SC_PAGESIZE);

		if (m == NULL || m->fd < 0)
			return NULL;
		c->mst_stride = ((size_t)m->vsize + 7) & ~(size_t)7;
		c->mst_len = (c->mst_stride * m->nentries + page - 1) / page *
			     page;
		void *p = mmap(NULL, c->mst_len, PROT_READ | PROT_WRITE,
			       MAP_SHARED, m->fd, 0);
		if (p == MAP_FAILED)
			return NULL;
		c->mst = p;
		c->mst_ncpus = m->nentries;
	}
	if (cpu < 0 || (uint32_t)cpu >= c->mst_ncpus)
		return NULL;
	return (int64_t *)(void *)(c->mst + (size_t)cpu * c->mst_stride +
				   d->mstoff);
}

/* Whether a CPU set its word "recorded" of d (mstflag). */
static bool agg_mst_recorded(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			     int ncpus)
{
	for (int cpu = 0; d->mstflag && cpu < ncpus; cpu++) {
		const int64_t *v = dt_agg_mst_val(dtp, d, cpu);
		if (v != NULL && v[-1] != 0)
			return true;
	}
	return false;
}

/* Every CPU's value of an aggregation kept in an array (or in the
 * mstates) into vals.  Returns 0 or -1 (errno). */
static int agg_array_read(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			  const uint8_t *key, uint8_t *vals, int ncpus)
{
	if (d->mstoff == 0)
		return bpf_map_lookup_elem(d->map->fd, key, vals);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		const int64_t *v = dt_agg_mst_val(dtp, d, cpu);
		if (v == NULL) {
			errno = ENODEV;
			return -1;
		}
		memcpy(vals + (size_t)cpu * dt_agg_cpu_stride(d), v, d->valsize);
	}
	return 0;
}

/* The snapshot of an aggregation kept in an array: its one entry, once
 * some CPU recorded something, until trunc() removes it. */
static int agg_snapshot_array(dtrace_hdl_t *dtp, dt_aggstate_t *as)
{
	const dt_aggdesc_t *d = as->desc;
	int ncpus = dt_agg_ncpus(dtp), err = 0;
	uint8_t *key = dt_zalloc(DT_AGG_KEYPREFIX + d->keysize);
	uint8_t *vals = dt_zalloc(dt_agg_cpu_stride(d) * (size_t)ncpus);

	agg_free_entries(as);
	if (agg_array_read(dtp, d, key, vals, ncpus) != 0) {
		err = -errno;
		dt_set_error(dtp, "failed to read aggregation @%s: %s",
			     d->name, strerror(errno));
	} else if (as->array_kept || agg_any_recorded(d, vals, ncpus) ||
		   agg_mst_recorded(dtp, d, ncpus)) {
		as->array_kept = true;
		agg_merge_percpu(as, agg_append(as, key + DT_AGG_KEYPREFIX),
				 vals, ncpus, dtp->opt.aggpercpu);
	}
	free(key);
	free(vals);
	return err;
}

/* --- keys naming the probe (dt_rec.h) --- */

#define AGG_PNAMES	256	/* the cache's slots */

/* The names of a probe as the programs read them ("probedesc"), cached
 * by PRID: a PRID is never given to another probe. */
struct dt_agg_pname {
	uint32_t prid;
	bool valid;
	dt_probedesc_rt_t d;
};

/* The name of a probe a key holds (DT_AGG_PROBEKEY), "" when the program
 * read none; *room: the room the program had for it. */
static const char *agg_probe_name(dtrace_hdl_t *dtp, uint64_t v,
				  size_t *room)
{
	static const struct { size_t off, size; } f[] = {
		{ offsetof(dt_probedesc_rt_t, prv), DT_PROBE_PRV_MAX },
		{ offsetof(dt_probedesc_rt_t, mod), DT_PROBE_MOD_MAX },
		{ offsetof(dt_probedesc_rt_t, fun), DT_PROBE_FUN_MAX },
		{ offsetof(dt_probedesc_rt_t, prb), DT_PROBE_PRB_MAX },
	};
	struct dt_consumer *c = dt_consumer_get(dtp);
	uint32_t prid = (uint32_t)v, name = (uint32_t)(v >> 32);

	if (name > 3)
		return "";
	*room = f[name].size;
	if (c->pnames == NULL)
		c->pnames = dt_zalloc(sizeof(*c->pnames) * AGG_PNAMES);
	struct dt_agg_pname *e = &c->pnames[prid % AGG_PNAMES];
	if (!e->valid || e->prid != prid) {
		const dtrace_map_t *pd = dt_bpf_map_find(dtp, "probedesc");

		e->prid = prid;
		e->valid = pd != NULL && pd->fd >= 0 &&
			   bpf_map_lookup_elem(pd->fd, &prid, &e->d) == 0;
		if (!e->valid)
			return "";
	}
	return (const char *)&e->d + f[name].off;
}

/* The key of d the consumer sees, from the map key mk (after the prefix)
 * of part: its probe names expanded as the program would have copied
 * them (cut at strsize - 1 characters and at their room). */
static void agg_key_expand(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			   const dt_aggdesc_t *part, const uint8_t *mk,
			   uint8_t *ck)
{
	if (part->kprobe == NULL) {
		memcpy(ck, mk, d->keysize);
		return;
	}
	memset(ck, 0, d->keysize);
	for (int k = 0; k < d->nkeys; k++) {
		const dt_recdesc_t *r = &d->keys[k];
		size_t slot = (k + 1 < d->nkeys ? d->keys[k + 1].offset :
			       d->keysize) - r->offset, room = 1;
		uint64_t v;

		if (!part->kprobe[k]) {
			memcpy(ck + r->offset, mk + part->moffset[k], slot);
			continue;
		}
		memcpy(&v, mk + part->moffset[k], sizeof(v));
		const char *s = agg_probe_name(dtp, v, &room);
		size_t max = (room < d->strsize ? room : d->strsize) - 1;
		memcpy(ck + r->offset, s, strnlen(s, max < slot ? max : slot));
	}
}

/* Whether d's entries come from more than one map layout or may merge
 * as they are read. */
bool dt_agg_keys_merge(const dt_aggdesc_t *d)
{
	if (d->kprobe != NULL || d->plain != NULL)
		return true;
	for (int k = 0; k < d->nkeys; k++)
		if (d->keys[k].kind == DT_RK_UADDR &&
		    d->keys[k].arg != DT_USYM_ADDR)
			return true;
	return false;
}


static int agg_walk_part(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			 const dt_aggdesc_t *part, dt_agg_walk_fn *fn, void *arg)
{
	size_t ks = DT_AGG_KEYPREFIX + (part->kprobe != NULL ?
					part->mkeysize : d->keysize);
	uint8_t *key = dt_zalloc(ks), *next = dt_zalloc(ks);
	uint8_t *ck = dt_zalloc(d->keysize ? d->keysize : 1);
	void *prev = NULL;
	int err = 0;

	while (err == 0 &&
	       bpf_map_get_next_key(part->map->fd, prev, next) == 0) {
		memcpy(key, next, ks);
		prev = key;
		if (!agg_map_owns(part, key))
			continue;	/* another aggregation's */
		agg_key_expand(dtp, d, part, key + DT_AGG_KEYPREFIX, ck);
		err = fn(dtp, part, key, ck, NULL, arg);
	}
	free(key);
	free(next);
	free(ck);
	return err;
}

/* --- the part by PRID (dt_rec.h) --- */

/* The PRID of map key mk (prefix included) of a part by PRID. */
uint32_t dt_agg_prid_of(const dt_aggdesc_t *part, const uint8_t *mk)
{
	uint64_t v;

	memcpy(&v, mk + DT_AGG_KEYPREFIX + part->moffset[0], sizeof(v));
	return (uint32_t)v;
}

/* The map key the hash would hold for prid's entry of a part by PRID, at
 * mk (prefix included). */
static void agg_prid_key(const dt_aggdesc_t *part, uint32_t prid,
			 uint8_t *mk)
{
	uint64_t id = (uint64_t)part->id;

	memset(mk, 0, DT_AGG_KEYPREFIX + part->mkeysize);
	memcpy(mk, &id, sizeof(id));
	for (int k = 0; k < part->nkeys; k++) {
		uint64_t v = DT_AGG_PROBEKEY(part->pnames[k], prid);
		memcpy(mk + DT_AGG_KEYPREFIX + part->moffset[k], &v, sizeof(v));
	}
}

/* Whether a CPU's slot of the value at vals says it recorded. */
static bool agg_prid_seen(const uint8_t *vals, int ncpus)
{
	for (int cpu = 0; cpu < ncpus; cpu++) {
		uint64_t seen;

		memcpy(&seen, vals + (size_t)cpu * DT_AGG_SLOT +
			      DT_AGG_SLOT_SEEN, sizeof(seen));
		if (seen != 0)
			return true;
	}
	return false;
}

/* Call fn for each entry of d's part by PRID that a CPU recorded, with
 * its values: the array is read in one batch. */
int dt_agg_walk_byprid(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
		       dt_agg_walk_fn *fn, void *arg)
{
	const dt_aggdesc_t *part = d->byprid;

	if (part == NULL || part->map->fd < 0)
		return 0;
	uint32_t n = part->map->nentries, count = n, next = 0;
	size_t vsize = part->map->vsize;
	int ncpus = (int)(vsize / DT_AGG_SLOT);
	uint32_t *prids = dt_zalloc(sizeof(*prids) * n);
	uint8_t *vals = dt_zalloc(vsize * n);
	uint8_t *mk = dt_zalloc(DT_AGG_KEYPREFIX + part->mkeysize);
	uint8_t *ck = dt_zalloc(d->keysize ? d->keysize : 1);
	int err = 0;

	if (bpf_map_lookup_batch(part->map->fd, NULL, &next, prids, vals,
				 &count, NULL) != 0 && errno != ENOENT)
		err = -errno;
	for (uint32_t i = 0; err == 0 && i < count; i++) {
		if (!agg_prid_seen(vals + i * vsize, ncpus))
			continue;
		agg_prid_key(part, prids[i], mk);
		agg_key_expand(dtp, d, part, mk + DT_AGG_KEYPREFIX, ck);
		err = fn(dtp, part, mk, ck, vals + i * vsize, arg);
	}
	free(prids);
	free(vals);
	free(mk);
	free(ck);
	return err;
}

/* Call fn for each entry of d's map, then of its plain part's (not of its
 * part by PRID: dt_agg_walk_byprid()). */
int dt_agg_walk(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
		dt_agg_walk_fn *fn, void *arg)
{
	int err = agg_walk_part(dtp, d, d, fn, arg);

	if (err == 0 && d->plain != NULL)
		err = agg_walk_part(dtp, d, d->plain, fn, arg);
	return err;
}

typedef struct agg_snap {
	dt_aggstate_t *as;
	uint8_t *vals;
	int ncpus;
	bool merge;	/* keys may merge: look them up */
	dt_agg_index_t ix;
} agg_snap_t;

static int agg_snap_entry(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			  const uint8_t *mk, uint8_t *ck, const uint8_t *vals,
			  void *arg)
{
	agg_snap_t *sn = arg;
	dt_aggent_t *e = NULL;

	if (vals != NULL)
		memcpy(sn->vals, vals, dt_agg_cpu_stride(part) * (size_t)sn->ncpus);
	else if (bpf_map_lookup_elem(part->map->fd, mk, sn->vals) != 0)
		return errno == ENOENT ? 0 : -errno;	/* deleted meanwhile */
	dt_agg_normalize_key(dtp, sn->as->desc, ck);
	if (sn->merge)
		e = dt_agg_index_find(&sn->ix, sn->as, ck);
	if (e == NULL) {
		e = agg_append(sn->as, ck);
		if (sn->merge)
			dt_agg_index_add(&sn->ix, sn->as, sn->as->nents - 1);
	}
	agg_merge_percpu(sn->as, e, sn->vals, sn->ncpus, dtp->opt.aggpercpu);
	return 0;
}

static int agg_snapshot_maps(dtrace_hdl_t *dtp, dt_aggstate_t *as)
{
	const dt_aggdesc_t *d = as->desc;
	agg_snap_t sn = { .as = as, .ncpus = dt_agg_ncpus(dtp) };
	int err;

	if (dt_agg_in_array(d))
		return agg_snapshot_array(dtp, as);
	if (d->map == NULL)
		return 0;	/* hand-made entries (tests) */
	sn.vals = dt_zalloc(dt_agg_cpu_stride(d) * (size_t)sn.ncpus);
	sn.merge = dt_agg_keys_merge(d);
	agg_free_entries(as);
	err = dt_agg_walk(dtp, d, agg_snap_entry, &sn);
	if (err == 0)
		err = dt_agg_walk_byprid(dtp, d, agg_snap_entry, &sn);
	free(sn.vals);
	dt_agg_index_fini(&sn.ix);
	if (err != 0)
		dt_set_error(dtp, "failed to read aggregation @%s: %s",
			     d->name, strerror(-err));
	return err;
}

/* The values since the last clear(): the maps' less what it took. */
int dt_agg_snapshot_one(dtrace_hdl_t *dtp, dt_aggstate_t *as)
{
	int err = agg_snapshot_maps(dtp, as);

	if (err == 0 && (as->desc->map != NULL || as->desc->mstoff != 0))
		dt_agg_base_apply(as);
	as->snap_batch = dt_consumer_get(dtp)->batch;
	return err;
}

int dt_agg_snapshot(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	int i, err = 0;

	if (c->aggs == NULL)
		dt_agg_setup(dtp, NULL, 0);
	for (i = 0; i < c->naggs; i++) {
		if (c->aggs[i].desc != NULL &&
		    dt_agg_snapshot_one(dtp, &c->aggs[i]) != 0)
			err = -1;
	}
	return err;
}

int dt_agg_snapshot_ids(dtrace_hdl_t *dtp, const int *ids, int n)
{
	for (int i = 0; i < n; i++) {
		dt_aggstate_t *as = dt_agg_state(dtp, ids[i]);

		if (as == NULL) {
			dt_set_error(dtp, "no aggregation with id %d", ids[i]);
			return -1;
		}
		if (dt_agg_snapshot_one(dtp, as) != 0)
			return -1;
	}
	return 0;
}

/* --- values and sorting --- */

/* --- printing --- */


/* --- per-CPU lines (aggpercpu) --- */

/* --- for other printers (JSON) --- */

/* --- clear, trunc, normalize --- */

/* --- samples aggregated by the consumer --- */

/*
 * An aggregation keyed on ustack() is aggregated here rather than in BPF:
 * its key is the unwound stack, which only the consumer computes.  The
 * probe records the stack copy, the other keys and the value
 * (DT_ACT_AGGSAMPLE, dt_cg_agg_sample()); the consumer builds the key,
 * adds the value to the entry's slot of the CPU that fired, and writes the
 * entry back into the aggregation's map, which BPF never writes for such
 * an aggregation.  Snapshots, printa(), clear() and trunc() then work on
 * the map as for any other aggregation.
 */

/* Add value v (increment w, 1 when w < 0 ... as the histograms take it)
 * to val, as the BPF code of the function does (dt_cg_agg.c). */
static void agg_apply(const dt_aggdesc_t *d, int64_t *val, int64_t v,
		      int64_t w)
{
	const int64_t *p = d->params;
	int64_t b, levels;
	unsigned __int128 sq;
	uint64_t lo;

	switch (d->func) {
	case DT_AGG_COUNT:
		val[0]++;
		return;
	case DT_AGG_SUM:
		val[0] += v;
		return;
	case DT_AGG_AVG:
		val[0]++;
		val[1] += v;
		return;
	case DT_AGG_STDDEV:
		val[0]++;
		val[1] += v;
		sq = (unsigned __int128)(v < 0 ? -(uint64_t)v : (uint64_t)v);
		sq *= sq;
		lo = (uint64_t)val[2] + (uint64_t)sq;
		val[3] += (int64_t)(uint64_t)(sq >> 64) + (lo < (uint64_t)val[2]);
		val[2] = (int64_t)lo;
		return;
	case DT_AGG_MIN:
	case DT_AGG_MAX:
		if (val[1]++ == 0 || (d->func == DT_AGG_MIN ? v < val[0] :
							   v > val[0]))
			val[0] = v;
		return;
	case DT_AGG_QUANTIZE:
		if (v == 0)
			b = DT_QUANTIZE_ZERO;
		else if (v > 0)
			b = DT_QUANTIZE_ZERO + 1 + (63 - __builtin_clzll((uint64_t)v));
		else if (v == INT64_MIN)
			b = 0;
		else
			b = DT_QUANTIZE_ZERO - 1 - (63 - __builtin_clzll((uint64_t)-v));
		break;
	case DT_AGG_LQUANTIZE:
		levels = dt_agg_lq_levels(d);
		b = v < p[0] ? 0 : v >= p[1] ? levels + 1 :
		    (v - p[0]) / (p[2] > 0 ? p[2] : 1) + 1;
		break;
	case DT_AGG_LLQUANTIZE:
		b = dt_llquantize_bucket(p[0], p[1], p[2], p[3], v);
		break;
	default:
		return;
	}
	if (b < 0)
		b = 0;
	if ((size_t)b >= dt_agg_nwords(d))
		b = (int64_t)dt_agg_nwords(d) - 1;
	val[b] += w >= 0 ? w : 1;
}

int dt_agg_add_sample(dtrace_hdl_t *dtp, int id, const void *key, int cpu,
		      int64_t v, int64_t w)
{
	dt_aggstate_t *as = dt_agg_state(dtp, id);
	int ncpus = dt_agg_ncpus(dtp);
	const dt_aggdesc_t *d;
	size_t stride;
	uint8_t *vals;
	int err = 0;

	if (as != NULL && as->desc->mstoff != 0) {
		int64_t *val = dt_agg_mst_val(dtp, as->desc, cpu);
		if (val != NULL)
			agg_apply(as->desc, val, v, w);
		if (val != NULL && as->desc->mstflag)
			val[-1] = 1;
		return 0;
	}
	if (as == NULL || as->desc->map == NULL)
		return 0;
	/* a key naming the probe is the consumer's here: the plain part */
	d = as->desc->kprobe != NULL ? as->desc->plain : as->desc;
	if (d == NULL)
		return 0;
	stride = dt_agg_cpu_stride(d);
	if (cpu < 0 || cpu >= ncpus)
		cpu = 0;
	vals = dt_zalloc(stride * (size_t)ncpus);
	uint8_t *mk = dt_agg_map_key(d, key);
	if (bpf_map_lookup_elem(d->map->fd, mk, vals) != 0)
		memset(vals, 0, stride * (size_t)ncpus);
	agg_apply(d, (int64_t *)(void *)(vals + (size_t)cpu * stride), v, w);
	if (bpf_map_update_elem(d->map->fd, mk, vals, BPF_ANY) != 0)
		err = -errno;
	free(mk);
	free(vals);
	return err;
}
