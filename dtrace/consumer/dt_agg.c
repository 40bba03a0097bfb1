/* SPDX-License-Identifier: MIT */
/*
 * dt_agg.c: the consumer's side of aggregations: snapshot the BPF maps,
 * merge the CPUs, sort, print as DTrace does; clear, trunc, normalize.
 *
 * Each aggregation is a hash keyed on its key tuple
 * (dt_rec.h), whose keys naming the probe are expanded here into the
 * names (agg_key_expand()); one without keys is in each CPU's mstate,
 * read through the map's mapping (agg_mst_val()), or a PERCPU_ARRAY.  A
 * lookup returns one value per possible CPU, each rounded up to 8 bytes,
 * or in a slot of DT_AGG_SLOT bytes in a hash of CPU slots (dt_rec.h;
 * agg_cpu_stride()).
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
 *   llquantize(factor, low, high, nsteps)  as illumos lays it out:
 *			[0] v < factor^low; then, for each order o from low
 *			to high, the bins of [factor^o, factor^(o+1)) in
 *			steps of factor^(o+1) / nsteps (1 if that is < 1);
 *			last, v >= factor^(high+1).  dt_llquantize_bucket()
 *			is the reference the code generator follows.
 *
 * -x aggpercpu: the snapshot also keeps, per entry, the value of each CPU
 * that recorded something in it (dt_agg_recorded(): a non-zero count, or
 * any non-zero word for count, sum and the histograms).  The default
 * printing then follows each row with one line per such CPU, in CPU
 * order: the key columns replaced by "    [CPU N]" (indented under the
 * key) and that CPU's value (its own avg, min, max or stddev) right-
 * aligned in the total's column; a histogram row is followed by, for each
 * CPU, the label alone on a line and that CPU's histogram under it.  A
 * joined printa(@a, @b) gives each CPU line every aggregation's value for
 * that CPU (0 where it recorded nothing).  For example:
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

#include "dt_consume_impl.h"
#include "dt_bpf.h"
#include "dt_runtime.h"

/* --- layout --- */

static int64_t ipow(int64_t base, int64_t exp)
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
 * Walk the llquantize bins: call fn(bin, lower bound) for each bin between
 * the underflow and the overflow bin.  Returns the number of bins walked.
 */
static int llq_walk(int64_t factor, int64_t low, int64_t high, int64_t nsteps,
		    bool (*fn)(int bin, int64_t lo, void *arg), void *arg)
{
	int64_t value = ipow(factor, low), next, step;
	int bin = 1;

	if (factor < 2 || nsteps < 1 || low > high)
		return 0;
	for (int64_t order = low; order <= high; order++) {
		next = value > INT64_MAX / factor ? INT64_MAX : value * factor;
		step = next > nsteps ? next / nsteps : 1;
		for (; value < next; value += step, bin++) {
			if (fn != NULL && !fn(bin, value, arg))
				return bin;
			if (bin > 100000)
				return bin;	/* absurd parameters */
		}
		value = next;
	}
	return bin - 1;
}

int dt_llquantize_nbuckets(int64_t factor, int64_t low, int64_t high,
			   int64_t nsteps)
{
	return llq_walk(factor, low, high, nsteps, NULL, NULL) + 2;
}

struct llq_find {
	int64_t v;
	int bin;
};

static bool llq_find_fn(int bin, int64_t lo, void *arg)
{
	struct llq_find *f = arg;

	if (f->v < lo)
		return false;
	f->bin = bin;
	return true;
}

int dt_llquantize_bucket(int64_t factor, int64_t low, int64_t high,
			 int64_t nsteps, int64_t v)
{
	struct llq_find f = { v, 0 };
	int n = dt_llquantize_nbuckets(factor, low, high, nsteps);

	if (v < ipow(factor, low))
		return 0;
	if (v >= ipow(factor, high + 1))
		return n - 1;
	llq_walk(factor, low, high, nsteps, llq_find_fn, &f);
	return f.bin;
}

static int lq_levels(const dt_aggdesc_t *d)
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
	case DT_AGG_LQUANTIZE:	return (size_t)lq_levels(d) + 2;
	case DT_AGG_LLQUANTIZE:
		return (size_t)dt_llquantize_nbuckets(d->params[0],
			d->params[1], d->params[2], d->params[3]);
	default:		return 1;
	}
}

/* The value an entry starts from (and returns to after clear()): zeros
 * for every function (min and max: count 0, nothing recorded, which
 * prints as 0). */
static void agg_init_val(const dt_aggdesc_t *d, int64_t *val)
{
	memset(val, 0, dt_agg_nwords(d) * sizeof(int64_t));
}

static void agg_merge_val(const dt_aggdesc_t *d, int64_t *dst,
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

static dt_aggstate_t *agg_state(dtrace_hdl_t *dtp, int id)
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
static void agg_free_percpu(dt_aggent_t *e)
{
	for (int cpu = 0; cpu < e->npercpu; cpu++)
		free(e->percpu[cpu]);
	free(e->percpu);
	e->percpu = NULL;
	e->npercpu = 0;
}

static void agg_free_entry(dt_aggent_t *e)
{
	free(e->key);
	free(e->val);
	agg_free_percpu(e);
}

static void agg_free_entries(dt_aggstate_t *as)
{
	for (size_t i = 0; i < as->nents; i++)
		agg_free_entry(&as->ents[i]);
	as->nents = 0;
}

static void agg_zero_close(struct dt_consumer *c);

void dt_agg_fini(dtrace_hdl_t *dtp)
{
	struct dt_consumer *c = dtp->cons;
	int i;

	if (c == NULL || c->aggs == NULL)
		return;
	agg_zero_close(c);
	for (i = 0; i < c->naggs; i++) {
		agg_free_entries(&c->aggs[i]);
		free(c->aggs[i].ents);
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

	if (as->nents == as->cap) {
		as->cap = as->cap ? as->cap * 2 : 16;
		as->ents = dt_realloc(as->ents, as->cap * sizeof(*as->ents));
	}
	e = &as->ents[as->nents++];
	e->key = dt_zalloc(ks ? ks : 1);
	if (ks)
		memcpy(e->key, key, ks);
	e->val = dt_zalloc(dt_agg_nwords(as->desc) * sizeof(int64_t));
	e->percpu = NULL;
	e->npercpu = 0;
	agg_init_val(as->desc, e->val);
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
	dt_aggstate_t *as = agg_state(dtp, id);
	dt_aggent_t *e;

	if (as == NULL)
		return;
	e = agg_find(as, key);
	if (e == NULL)
		e = agg_append(as, key);
	agg_merge_val(as->desc, e->val, val);
}

/* --- per-CPU values (aggpercpu) --- */

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
	dt_aggstate_t *as = agg_state(dtp, id);
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
static bool agg_in_slots(const dt_aggdesc_t *d)
{
	return d->map != NULL && d->map->type == BPF_MAP_TYPE_HASH;
}

/* Whether d is a part by PRID (dt_rec.h): an array of CPU slots indexed
 * by PRID. */
static bool agg_by_prid(const dt_aggdesc_t *d)
{
	return d->map != NULL && d->map->type == BPF_MAP_TYPE_ARRAY;
}

/* The bytes between two CPUs' values in what a lookup of d's map returns:
 * CPU slots' (a hash's or an array's by PRID), else a per-CPU map's (the
 * value rounded up to 8 bytes). */
static size_t agg_cpu_stride(const dt_aggdesc_t *d)
{
	if (agg_in_slots(d) || agg_by_prid(d))
		return DT_AGG_SLOT;

	size_t vs = d->valsize ? d->valsize : dt_agg_nwords(d) * 8;

	return (vs + 7) & ~(size_t)7;
}

/* Move the ufunc/usym/umod keys of a key read from the map to what they
 * print (dt_usym_normalize()); returns whether any changed, so that the
 * entry may merge with another. */
static bool agg_normalize_key(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
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
	size_t stride = agg_cpu_stride(as->desc);
	size_t nw = dt_agg_nwords(as->desc);
	int64_t *tmp = dt_zalloc(nw * sizeof(int64_t));
	size_t copy = stride < nw * 8 ? stride : nw * 8;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		agg_init_val(as->desc, tmp);
		memcpy(tmp, vals + (size_t)cpu * stride, copy);
		agg_merge_val(as->desc, e->val, tmp);
		if (keep && dt_agg_recorded(as->desc, tmp))
			agg_set_cpu(as->desc, e, cpu, ncpus, tmp);
	}
	free(tmp);
}

/*
 * An index of the entries of an aggregation by key, while map keys may
 * merge into one entry (keys naming the probe, normalized user
 * addresses): open addressing over entry numbers + 1.
 */
typedef struct agg_index {
	size_t *slot;
	size_t cap, n;
} agg_index_t;

static size_t agg_key_hash(const uint8_t *k, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 1099511628211ULL;
	return (size_t)h;
}

static size_t *agg_index_slot(agg_index_t *ix, const dt_aggstate_t *as,
			      const uint8_t *key)
{
	size_t ks = as->desc->keysize, i = agg_key_hash(key, ks) % ix->cap;

	while (ix->slot[i] != 0 &&
	       memcmp(as->ents[ix->slot[i] - 1].key, key, ks) != 0)
		i = (i + 1) % ix->cap;
	return &ix->slot[i];
}

static void agg_index_add(agg_index_t *ix, const dt_aggstate_t *as,
			  size_t ent)
{
	if ((ix->n + 1) * 2 > ix->cap) {
		free(ix->slot);
		ix->cap = ix->cap ? ix->cap * 2 : 64;
		ix->slot = dt_zalloc(ix->cap * sizeof(*ix->slot));
		for (size_t i = 0; i < ix->n; i++)
			*agg_index_slot(ix, as, as->ents[i].key) = i + 1;
	}
	*agg_index_slot(ix, as, as->ents[ent].key) = ent + 1;
	ix->n++;
}

static dt_aggent_t *agg_index_find(agg_index_t *ix, dt_aggstate_t *as,
				   const uint8_t *key)
{
	size_t *sl = ix->cap ? agg_index_slot(ix, as, key) : NULL;

	return sl != NULL && *sl != 0 ? &as->ents[*sl - 1] : NULL;
}

/* Whether d lives in a per-CPU array of one entry (no keys; dt_cg_agg.c):
 * its key is 0, its entry always there, all zeros until it records. */
static bool agg_in_array(const dt_aggdesc_t *d)
{
	return d->mstoff != 0 ||
	       (d->map != NULL && d->map->type == BPF_MAP_TYPE_PERCPU_ARRAY);
}

/* The key of entry key of d in its (shared) map: the id, then the key;
 * 0 in an array. */
static uint8_t *agg_map_key(const dt_aggdesc_t *d, const void *key)
{
	uint8_t *mk = dt_zalloc(DT_AGG_KEYPREFIX + d->keysize);
	uint64_t id = (uint64_t)d->id;

	if (agg_in_array(d))
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
	size_t stride = agg_cpu_stride(d), nw = dt_agg_nwords(d);
	size_t copy = stride < nw * 8 ? stride : nw * 8;
	int64_t *tmp = dt_zalloc(nw * sizeof(int64_t));
	bool any = false;

	for (int cpu = 0; cpu < ncpus && !any; cpu++) {
		agg_init_val(d, tmp);
		memcpy(tmp, vals + (size_t)cpu * stride, copy);
		any = dt_agg_recorded(d, tmp);
	}
	free(tmp);
	return any;
}

/* CPU cpu's value of d, kept in its mstate (d->mstoff): in the mapping
 * of the "mstate" map, made at the first use; NULL if it cannot be. */
static int64_t *agg_mst_val(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
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
		const int64_t *v = agg_mst_val(dtp, d, cpu);
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
		const int64_t *v = agg_mst_val(dtp, d, cpu);
		if (v == NULL) {
			errno = ENODEV;
			return -1;
		}
		memcpy(vals + (size_t)cpu * agg_cpu_stride(d), v, d->valsize);
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
	uint8_t *vals = dt_zalloc(agg_cpu_stride(d) * (size_t)ncpus);

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
static bool agg_keys_merge(const dt_aggdesc_t *d)
{
	if (d->kprobe != NULL || d->plain != NULL)
		return true;
	for (int k = 0; k < d->nkeys; k++)
		if (d->keys[k].kind == DT_RK_UADDR &&
		    d->keys[k].arg != DT_USYM_ADDR)
			return true;
	return false;
}

/* What agg_walk() calls for each entry: its map key mk (prefix
 * included) in part's map, the key ck the consumer sees, and its value for
 * every CPU where the walk read them with the keys (vals; NULL: not read);
 * non-zero stops the walk. */
typedef int agg_walk_fn(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			const uint8_t *mk, uint8_t *ck, const uint8_t *vals,
			void *arg);

static int agg_walk_part(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			 const dt_aggdesc_t *part, agg_walk_fn *fn, void *arg)
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
static uint32_t agg_prid_of(const dt_aggdesc_t *part, const uint8_t *mk)
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
static int agg_walk_byprid(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			   agg_walk_fn *fn, void *arg)
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
 * part by PRID: agg_walk_byprid()). */
static int agg_walk(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
		    agg_walk_fn *fn, void *arg)
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
	agg_index_t ix;
} agg_snap_t;

static int agg_snap_entry(dtrace_hdl_t *dtp, const dt_aggdesc_t *part,
			  const uint8_t *mk, uint8_t *ck, const uint8_t *vals,
			  void *arg)
{
	agg_snap_t *sn = arg;
	dt_aggent_t *e = NULL;

	if (vals != NULL)
		memcpy(sn->vals, vals, agg_cpu_stride(part) * (size_t)sn->ncpus);
	else if (bpf_map_lookup_elem(part->map->fd, mk, sn->vals) != 0)
		return errno == ENOENT ? 0 : -errno;	/* deleted meanwhile */
	agg_normalize_key(dtp, sn->as->desc, ck);
	if (sn->merge)
		e = agg_index_find(&sn->ix, sn->as, ck);
	if (e == NULL) {
		e = agg_append(sn->as, ck);
		if (sn->merge)
			agg_index_add(&sn->ix, sn->as, sn->as->nents - 1);
	}
	agg_merge_percpu(sn->as, e, sn->vals, sn->ncpus, dtp->opt.aggpercpu);
	return 0;
}

static int agg_snapshot_one(dtrace_hdl_t *dtp, dt_aggstate_t *as)
{
	const dt_aggdesc_t *d = as->desc;
	agg_snap_t sn = { .as = as, .ncpus = dt_agg_ncpus(dtp) };
	int err;

	if (agg_in_array(d))
		return agg_snapshot_array(dtp, as);
	if (d->map == NULL)
		return 0;	/* hand-made entries (tests) */
	sn.vals = dt_zalloc(agg_cpu_stride(d) * (size_t)sn.ncpus);
	sn.merge = agg_keys_merge(d);
	agg_free_entries(as);
	err = agg_walk(dtp, d, agg_snap_entry, &sn);
	if (err == 0)
		err = agg_walk_byprid(dtp, d, agg_snap_entry, &sn);
	free(sn.vals);
	free(sn.ix.slot);
	if (err != 0)
		dt_set_error(dtp, "failed to read aggregation @%s: %s",
			     d->name, strerror(-err));
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
		    agg_snapshot_one(dtp, &c->aggs[i]) != 0)
			err = -1;
	}
	return err;
}

static int agg_snapshot_ids(dtrace_hdl_t *dtp, const int *ids, int n)
{
	for (int i = 0; i < n; i++) {
		dt_aggstate_t *as = agg_state(dtp, ids[i]);

		if (as == NULL) {
			dt_set_error(dtp, "no aggregation with id %d", ids[i]);
			return -1;
		}
		if (agg_snapshot_one(dtp, as) != 0)
			return -1;
	}
	return 0;
}

/* --- values and sorting --- */

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

/* Keys compare field by field from key position `from`: integers as
 * unsigned values (as DTrace sorts them), strings and bytes bytewise. */
static int agg_keycmp(const dt_aggdesc_t *d, const uint8_t *a,
		      const uint8_t *b, int from)
{
	for (int k = 0; k < d->nkeys; k++) {
		const dt_recdesc_t *r = &d->keys[(k + from) % d->nkeys];
		int c;

		if (r->kind == DT_RK_INT) {
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

/* One row of a (possibly joined) printa: a key and a value per agg. */
typedef struct agg_row {
	const uint8_t *key;
	size_t ent;		/* index of the entry in the first aggregation */
	const int64_t **vals;	/* one per aggregation printed; NULL: none */
	const dt_aggent_t **ents;	/* the entries of vals (NULL: none) */
} agg_row_t;

typedef struct agg_sortctx {
	dtrace_hdl_t *dtp;
	dt_aggstate_t **aggs;
	int naggs;
	int pos;		/* which aggregation's value sorts */
} agg_sortctx_t;

static int agg_rowcmp(const void *pa, const void *pb, void *arg)
{
	const agg_row_t *a = pa, *b = pb;
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
		agg_init_val(d, zero);
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
static agg_row_t *agg_rows(dtrace_hdl_t *dtp, dt_aggstate_t **aggs, int n,
			   size_t *nrows)
{
	size_t cap = 0, rows = 0;
	agg_row_t *r = NULL;
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
				if (rows == cap) {
					cap = cap ? cap * 2 : 16;
					r = dt_realloc(r, cap * sizeof(*r));
				}
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

static void agg_rows_free(agg_row_t *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].vals);
		free(r[i].ents);
	}
	free(r);
}

/* --- printing --- */

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
	int levels = lq_levels(d), first, last;
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

struct llq_print {
	FILE *out;
	const int64_t *b;
	int first, last;
	uint64_t normal;
	long double total;
	bool pos, neg;
};

static bool llq_print_fn(int bin, int64_t lo, void *arg)
{
	struct llq_print *p = arg;

	if (bin >= p->first && bin <= p->last) {
		fprintf(p->out, "%16lld ", (long long)lo);
		agg_quantline(p->out, p->b[bin], p->normal, p->total, p->pos,
			      p->neg);
	}
	return true;
}

static void agg_print_llquantize(FILE *out, const dt_aggdesc_t *d,
				 const int64_t *b, uint64_t normal)
{
	int64_t factor = d->params[0], low = d->params[1];
	int64_t high = d->params[2], nsteps = d->params[3];
	int n = dt_llquantize_nbuckets(factor, low, high, nsteps);
	struct llq_print p = { out, b, 0, 0, normal, 0, false, false };
	char label[48];

	if (n < 3) {
		fprintf(out, " (bad llquantize parameters)\n");
		return;
	}
	agg_hist_range(b, n, 0, 1, &p.first, &p.last);
	agg_hist_totals(b, p.first, p.last, &p.total, &p.pos, &p.neg);
	agg_hist_header(out);
	if (p.first == 0) {
		snprintf(label, sizeof(label), "< %lld",
			 (long long)ipow(factor, low));
		fprintf(out, "%16s ", label);
		agg_quantline(out, b[0], normal, p.total, p.pos, p.neg);
	}
	llq_walk(factor, low, high, nsteps, llq_print_fn, &p);
	if (p.last == n - 1) {
		snprintf(label, sizeof(label), ">= %lld",
			 (long long)ipow(factor, high + 1));
		fprintf(out, "%16s ", label);
		agg_quantline(out, b[n - 1], normal, p.total, p.pos, p.neg);
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
 * bytes unsigned, 4 and 8 signed), strings left-aligned in 50 columns. */
static void agg_print_key(dtrace_hdl_t *dtp, FILE *out, const dt_recdesc_t *r,
			  const uint8_t *key)
{
	const uint8_t *p = key + r->offset;
	uint64_t v = key_int(r, key);

	if (r->kind == DT_RK_USTACK || r->kind == DT_RK_KSTACK) {
		dt_print_stack(dtp, out, r, p);	/* ends with a newline */
		return;
	}
	if (r->kind == DT_RK_UADDR) {
		dt_print_usym(dtp, out, r, p);
		return;
	}
	if (r->kind != DT_RK_INT) {
		dt_print_strbytes(dtp, out, p, r->size, -50, false);
		return;
	}
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

/* --- per-CPU lines (aggpercpu) --- */

/* CPU cpu's value of entry e, NULL when it recorded nothing. */
static const int64_t *agg_cpu_val(const dt_aggent_t *e, int cpu)
{
	if (e == NULL || e->percpu == NULL || cpu >= e->npercpu)
		return NULL;
	return e->percpu[cpu];
}

/* Width of the key columns of a row: the length of the last line of its
 * keys as printed (a stack key ends with a newline: 0). */
static size_t agg_key_width(dtrace_hdl_t *dtp, const dt_aggdesc_t *kd,
			    const uint8_t *key)
{
	char *text = NULL, *nl;
	size_t len = 0, w;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return 0;
	for (int k = 0; k < kd->nkeys; k++)
		agg_print_key(dtp, f, &kd->keys[k], key);
	fclose(f);
	nl = text ? strrchr(text, '\n') : NULL;
	w = nl ? len - (size_t)(nl + 1 - text) : len;
	free(text);
	return w;
}

/* The values of one CPU for a row, as the row prints its totals. */
static char *agg_cpu_values(dt_aggstate_t **aggs, int n, const agg_row_t *row,
			    int cpu)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		return NULL;
	for (int a = 0; a < n; a++) {
		const int64_t *v = agg_cpu_val(row->ents[a], cpu);
		int64_t *zero = NULL;

		if (v == NULL) {
			zero = dt_zalloc(dt_agg_nwords(aggs[a]->desc) * 8);
			agg_init_val(aggs[a]->desc, zero);
			v = zero;
		}
		dt_agg_print_value(f, aggs[a]->desc, v, aggs[a]->normal);
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
			     dt_aggstate_t **aggs, int n, const agg_row_t *row)
{
	int ncpus = 0;
	size_t keywidth;

	for (int a = 0; a < n; a++)
		if (row->ents[a] != NULL && row->ents[a]->npercpu > ncpus)
			ncpus = row->ents[a]->npercpu;
	if (ncpus == 0)
		return;
	keywidth = agg_key_width(dtp, aggs[0]->desc, row->key);
	for (int cpu = 0; cpu < ncpus; cpu++) {
		bool any = false;
		char *vals;

		for (int a = 0; a < n; a++)
			any |= agg_cpu_val(row->ents[a], cpu) != NULL;
		if (!any || (vals = agg_cpu_values(aggs, n, row, cpu)) == NULL)
			continue;
		agg_print_cpu_line(out, cpu, keywidth, vals);
		free(vals);
	}
}

static void agg_print_row(dtrace_hdl_t *dtp, FILE *out, dt_aggstate_t **aggs,
			  int n, const agg_row_t *row)
{
	const dt_aggdesc_t *kd = aggs[0]->desc;
	int64_t *zero = NULL;

	for (int k = 0; k < kd->nkeys; k++)
		agg_print_key(dtp, out, &kd->keys[k], row->key);
	for (int a = 0; a < n; a++) {
		const int64_t *v = row->vals[a];

		if (v == NULL) {
			free(zero);
			zero = dt_zalloc(dt_agg_nwords(aggs[a]->desc) * 8);
			agg_init_val(aggs[a]->desc, zero);
			v = zero;
		}
		dt_agg_print_value(out, aggs[a]->desc, v, aggs[a]->normal);
	}
	free(zero);
	fputc('\n', out);
	if (dtp->opt.aggpercpu)
		agg_print_percpu(dtp, out, aggs, n, row);
}

static int agg_collect(dtrace_hdl_t *dtp, const int *ids, int n,
		       dt_aggstate_t ***aggsp)
{
	dt_aggstate_t **aggs = dt_zalloc(sizeof(*aggs) * (size_t)(n ? n : 1));

	for (int i = 0; i < n; i++) {
		aggs[i] = agg_state(dtp, ids[i]);
		if (aggs[i] == NULL) {
			dt_set_error(dtp, "no aggregation with id %d", ids[i]);
			free(aggs);
			return -1;
		}
	}
	*aggsp = aggs;
	return 0;
}

/* Print the rows of aggs[0..n-1] (no leading newline); a printa() marks
 * them printed (not the printing at exit, as in DTrace). */
static void agg_print_rows(dtrace_hdl_t *dtp, FILE *out, dt_aggstate_t **aggs,
			   int n, bool mark)
{
	size_t nrows = 0;
	agg_row_t *rows = agg_rows(dtp, aggs, n, &nrows);

	for (size_t i = 0; i < nrows; i++)
		agg_print_row(dtp, out, aggs, n, &rows[i]);
	for (int a = 0; a < n && mark; a++)
		if (aggs[a]->nents > 0)
			aggs[a]->printed = true;
	agg_rows_free(rows, nrows);
}

int dt_agg_print(dtrace_hdl_t *dtp, FILE *out, const int *ids, int n)
{
	dt_aggstate_t **aggs;

	if (n < 1 || agg_snapshot_ids(dtp, ids, n) != 0 ||
	    agg_collect(dtp, ids, n, &aggs) != 0)
		return -1;
	fputc('\n', out);
	agg_print_rows(dtp, out, aggs, n, true);
	free(aggs);
	return 0;
}

int dt_agg_printf(dtrace_hdl_t *dtp, FILE *out, const char *fmt,
		  const int *ids, int n)
{
	dt_aggstate_t **aggs;
	agg_row_t *rows;
	size_t nrows = 0;
	dt_pfagg_t *pa;
	int err = 0;

	if (n < 1 || agg_snapshot_ids(dtp, ids, n) != 0 ||
	    agg_collect(dtp, ids, n, &aggs) != 0)
		return -1;
	rows = agg_rows(dtp, aggs, n, &nrows);
	pa = dt_zalloc(sizeof(*pa) * (size_t)n);
	/* what an aggregation without the row's key shows: its initial
	 * value, one for each (a row may miss several) */
	int64_t **init = dt_zalloc(sizeof(*init) * (size_t)n);
	for (int a = 0; a < n; a++) {
		init[a] = dt_zalloc(dt_agg_nwords(aggs[a]->desc) * 8);
		agg_init_val(aggs[a]->desc, init[a]);
	}
	for (size_t i = 0; i < nrows && err == 0; i++) {
		for (int a = 0; a < n; a++) {
			pa[a].desc = aggs[a]->desc;
			pa[a].normal = aggs[a]->normal;
			pa[a].val = rows[i].vals[a] ? rows[i].vals[a] : init[a];
		}
		err = dt_printf_run(dtp, out, fmt, aggs[0]->desc->keys,
				    aggs[0]->desc->nkeys, rows[i].key, pa, n);
	}
	for (int a = 0; a < n; a++) {
		if (aggs[a]->nents > 0)
			aggs[a]->printed = true;
		free(init[a]);
	}
	free(init);
	free(pa);
	agg_rows_free(rows, nrows);
	free(aggs);
	return err;
}

int dt_agg_print_all(dtrace_hdl_t *dtp, FILE *out)
{
	struct dt_consumer *c = dt_consumer_get(dtp);
	int err = dt_agg_snapshot(dtp);

	for (int i = 0; i < c->naggs; i++) {
		dt_aggstate_t *as = &c->aggs[i];

		if (as->desc == NULL || as->printed || as->nents == 0)
			continue;
		if (dtp->opt.json)
			dt_json_aggregation(dtp, out, as, "exit");
		else
			agg_print_rows(dtp, out, &as, 1, false);
	}
	return err;
}

/* --- for other printers (JSON) --- */

dt_aggstate_t *dt_agg_get(dtrace_hdl_t *dtp, int id)
{
	dt_aggstate_t *as = agg_state(dtp, id);

	if (as == NULL) {
		dt_set_error(dtp, "no aggregation with id %d", id);
		return NULL;
	}
	return agg_snapshot_one(dtp, as) == 0 ? as : NULL;
}

size_t *dt_agg_order(dtrace_hdl_t *dtp, dt_aggstate_t *as, size_t *n)
{
	size_t nrows = 0, *order;
	agg_row_t *rows = agg_rows(dtp, &as, 1, &nrows);

	order = dt_zalloc(sizeof(*order) * (nrows ? nrows : 1));
	for (size_t i = 0; i < nrows; i++)
		order[i] = rows[i].ent;
	agg_rows_free(rows, nrows);
	*n = nrows;
	return order;
}

struct llq_lo {
	int bin;
	int64_t lo;
};

static bool llq_lo_fn(int bin, int64_t lo, void *arg)
{
	struct llq_lo *f = arg;

	if (bin < f->bin)
		return true;
	f->lo = lo;
	return false;
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

int64_t dt_agg_bucket_min(const dt_aggdesc_t *d, int bin)
{
	int64_t factor = d->params[0], low = d->params[1];
	struct llq_lo f = { bin, INT64_MAX };

	switch (d->func) {
	case DT_AGG_QUANTIZE:
		return quantize_bucket_min(bin);
	case DT_AGG_LQUANTIZE:
		if (bin == 0)
			return INT64_MIN;
		return d->params[0] + (int64_t)(bin - 1) * d->params[2];
	case DT_AGG_LLQUANTIZE:
		if (bin == 0)
			return INT64_MIN;
		if (bin == (int)dt_agg_nwords(d) - 1)
			return ipow(factor, d->params[2] + 1);
		llq_walk(factor, low, d->params[2], d->params[3], llq_lo_fn,
			 &f);
		return f.lo;
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

/* --- clear, trunc, normalize --- */

/* d's initial value over each of the ncpus values at vals (as a lookup
 * of d's map returns them), leaving the rest of a CPU's slot as it is. */
static void agg_init_vals(const dt_aggdesc_t *d, uint8_t *vals, int ncpus)
{
	size_t stride = agg_cpu_stride(d), nw = dt_agg_nwords(d);
	size_t copy = stride < nw * 8 ? stride : nw * 8;
	int64_t *init = dt_zalloc(nw * 8);

	agg_init_val(d, init);
	for (int cpu = 0; cpu < ncpus; cpu++)
		memcpy(vals + (size_t)cpu * stride, init, copy);
	free(init);
}

/* Write the initial value for every CPU of map key mk into d's map. */
static int agg_map_reset_mk(dtrace_hdl_t *dtp, const dt_aggdesc_t *d,
			    const uint8_t *mk)
{
	int ncpus = dt_agg_ncpus(dtp);
	uint8_t *vals = dt_zalloc(agg_cpu_stride(d) * (size_t)ncpus);
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
	uint32_t prid = agg_prid_of(part, mk);
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
		int64_t *v = agg_mst_val(dtp, d, cpu);
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
			int64_t *v = agg_mst_val(dtp, d, cpu);
			if (v != NULL)
				memset(v, 0, d->valsize);
		}
		return 0;
	}
	uint8_t *mk = agg_map_key(d, key);
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
	if (agg_by_prid(part))
		agg_prid_reset(dtp, part, mk, vals);
	else
		agg_map_reset_mk(dtp, part, mk);
	return 0;
}

/* The map keys to delete in trunc(): those of no kept entry. */
typedef struct agg_cut {
	dt_aggstate_t *kept;	/* the kept entries, indexed */
	agg_index_t ix;
	uint8_t **mks;
	size_t n;
} agg_cut_t;

/* Whether trunc() keeps the entry of key ck (as read from a map). */
static bool agg_cut_keeps(dtrace_hdl_t *dtp, agg_cut_t *cut, uint8_t *ck)
{
	agg_normalize_key(dtp, cut->kept->desc, ck);
	return agg_index_find(&cut->ix, cut->kept, ck) != NULL;
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
	uint32_t prid = agg_prid_of(part, mk);

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
		agg_index_add(&cut.ix, &kept, i);
	agg_walk(dtp, as->desc, agg_cut_entry, &cut);
	agg_walk_byprid(dtp, as->desc, agg_cut_prid_entry, &cut);
	for (size_t i = 0; i < cut.n; i++) {
		uint64_t id;

		memcpy(&id, cut.mks[i], sizeof(id));
		bpf_map_delete_elem(id == (uint64_t)as->desc->id ?
				    as->desc->map->fd :
				    as->desc->plain->map->fd, cut.mks[i]);
		free(cut.mks[i]);
	}
	free(cut.mks);
	free(cut.ix.slot);
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

	dt_as_init(&as);
	agg_zero_emit(&as, map);
	dt_as_finish(&as);
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

/* Close the zeroing programs: loaded again if the aggregations are set up
 * again. */
static void agg_zero_close(struct dt_consumer *c)
{
	for (int i = 0; i < c->nzeros; i++)
		if (c->zeros[i].fd >= 0)
			close(c->zeros[i].fd);
	free(c->zeros);
	c->zeros = NULL;
	c->nzeros = 0;
}

/* Zero the entries of part in place; false when they are not in a hash of
 * CPU slots or the program cannot run. */
static bool agg_zero_part(dtrace_hdl_t *dtp, dt_aggdesc_t *part)
{
	if (!agg_in_slots(part) || part->map->fd < 0)
		return false;
	int fd = agg_zero_prog(dtp, part->map);
	uint64_t id = (uint64_t)part->id;
	LIBBPF_OPTS(bpf_test_run_opts, run, .ctx_in = &id,
		    .ctx_size_in = sizeof(id));

	return fd >= 0 && bpf_prog_test_run_opts(fd, &run) == 0;
}

static bool agg_zero_in_place(dtrace_hdl_t *dtp, dt_aggdesc_t *d)
{
	return agg_zero_part(dtp, d) &&
	       (d->plain == NULL || agg_zero_part(dtp, d->plain));
}

int dt_agg_clear(dtrace_hdl_t *dtp, int id)
{
	dt_aggstate_t *as = agg_state(dtp, id);

	if (as == NULL || agg_snapshot_one(dtp, as) != 0)
		return -1;
	bool in_place = agg_zero_in_place(dtp, as->desc);
	bool by_walk = as->desc->map != NULL && agg_keys_merge(as->desc);
	for (size_t i = 0; i < as->nents; i++) {
		agg_init_val(as->desc, as->ents[i].val);
		agg_free_percpu(&as->ents[i]);
		if ((as->desc->map != NULL || as->desc->mstoff != 0) &&
		    !by_walk && !in_place)
			agg_map_reset(dtp, as->desc, as->ents[i].key);
	}
	/* an entry may stand for several map keys */
	if (by_walk && !in_place)
		agg_walk(dtp, as->desc, agg_reset_entry, NULL);
	agg_walk_byprid(dtp, as->desc, agg_reset_entry, NULL);
	return 0;
}

int dt_agg_trunc(dtrace_hdl_t *dtp, int id, int64_t n, bool all)
{
	dt_aggstate_t *as = agg_state(dtp, id);
	dt_options_t saved;
	agg_row_t *rows;
	size_t nrows = 0, keep;
	dt_aggent_t *kept;

	if (as == NULL || agg_snapshot_one(dtp, as) != 0)
		return -1;
	/* trunc orders by value alone, whatever the sorting options */
	saved = dtp->opt;
	dtp->opt.aggsortkey = false;
	dtp->opt.aggsortrev = n >= 0;	/* keep the largest n */
	dtp->opt.aggsortkeypos = 0;
	rows = agg_rows(dtp, &as, 1, &nrows);
	dtp->opt = saved;
	keep = all ? 0 : (size_t)(n < 0 ? -n : n);
	kept = dt_zalloc(sizeof(*kept) * (nrows ? nrows : 1));
	bool by_walk = as->desc->map != NULL && agg_keys_merge(as->desc);
	for (size_t i = 0; i < nrows; i++) {
		dt_aggent_t *e = &as->ents[rows[i].ent];

		if (i < keep) {
			kept[i] = *e;
			continue;
		}
		if (agg_in_array(as->desc)) {
			agg_map_reset(dtp, as->desc, e->key);
			agg_mst_unflag(dtp, as->desc);
			as->array_kept = false;
		} else if (as->desc->map != NULL && !by_walk) {
			uint8_t *mk = agg_map_key(as->desc, e->key);
			bpf_map_delete_elem(as->desc->map->fd, mk);
			free(mk);
		}
		agg_free_entry(e);
	}
	agg_rows_free(rows, nrows);
	free(as->ents);
	as->ents = kept;
	as->nents = keep < nrows ? keep : nrows;
	as->cap = nrows ? nrows : 1;
	if (by_walk)
		agg_cut(dtp, as, as->nents);
	return 0;
}

int dt_agg_normalize(dtrace_hdl_t *dtp, int id, uint64_t normal)
{
	dt_aggstate_t *as = agg_state(dtp, id);

	if (as == NULL)
		return -1;
	as->normal = normal ? normal : 1;
	return 0;
}

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
		levels = lq_levels(d);
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
	dt_aggstate_t *as = agg_state(dtp, id);
	int ncpus = dt_agg_ncpus(dtp);
	const dt_aggdesc_t *d;
	size_t stride;
	uint8_t *vals;
	int err = 0;

	if (as != NULL && as->desc->mstoff != 0) {
		int64_t *val = agg_mst_val(dtp, as->desc, cpu);
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
	stride = agg_cpu_stride(d);
	if (cpu < 0 || cpu >= ncpus)
		cpu = 0;
	vals = dt_zalloc(stride * (size_t)ncpus);
	uint8_t *mk = agg_map_key(d, key);
	if (bpf_map_lookup_elem(d->map->fd, mk, vals) != 0)
		memset(vals, 0, stride * (size_t)ncpus);
	agg_apply(d, (int64_t *)(void *)(vals + (size_t)cpu * stride), v, w);
	if (bpf_map_update_elem(d->map->fd, mk, vals, BPF_ANY) != 0)
		err = -errno;
	free(mk);
	free(vals);
	return err;
}
