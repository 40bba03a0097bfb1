/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_agg.c: aggregations, @name[keys] = func(args).
 *
 * Each aggregation is a hash map "agg_NAME" keyed by its tuple
 * (integers in 8-byte slots, strings strsize bytes NUL padded, stack()
 * and ustack() their record as the action writes it; the anonymous key is
 * one 8-byte 0).  An aggregation without keys whose value says whether it
 * recorded anything (count, avg, min, max, stddev: dt_agg_recorded()) is
 * kept in each CPU's mstate (its first DT_CG_AGGMST bytes of the code
 * generator's area, on the page every firing touches already: no lookup
 * at all), or a PERCPU_ARRAY of one entry once they are taken
 * (agg_is_array()); the consumer reads the mstate through the map's
 * mapping and skips the value while all zeros.  A hash key naming the
 * probe is 8 bytes, the probe's id (dt_rec.h).  Its value is the state dt_rec.h gives
 * for the function, one per CPU: a PERCPU_HASH, or, where every possible
 * CPU's value fits a slot of DT_AGG_SLOT bytes within DT_AGG_SLOTS_MAX, a
 * plain HASH whose value is the CPUs' slots side by side (agg_slots()):
 * the value is then in the hash element the lookup read for the key, not
 * on another page of the per-CPU area (which cost about 100 ns a firing
 * on the development machine), and the slots, a cache line each, are not
 * shared between CPUs.  A firing looks the key up; a missing entry is
 * created from zeros (the "aggzero" map, sized to the largest value), then
 * updated in place, in this CPU's value: no atomics are needed.  Creating an
 * entry on one CPU makes it read as zeros on the others, so min and max
 * carry a count beside the value: a CPU whose count is 0 holds nothing,
 * and a true minimum of 0 is never mistaken for an empty CPU.  An entry that finds no room counts
 * cpuinfo.agg_drops.  The consumer's clear() writes no map where the values
 * add up (it subtracts what it cleared from later snapshots: a write would
 * race with the firings' plain adds); for min and max it zeroes the
 * entries of a hash of CPU slots in place (dt_agg_clear.c,
 * agg_zero_emit()): bpf_map_update_elem() would replace the element a
 * firing may hold.  Where every key names the
 * probe (@[probefunc]), the PRID alone gives the entry: the probes made
 * before tracing began keep theirs in an array indexed by PRID beside the
 * hash (dt_rec.h, byprid), with the same CPU slots.  The kernel inlines an
 * array's lookup: no key staged, hashed or compared, and no bucket, a page
 * walk less per firing (about 80 ns on the development machine).
 *
 * The first use of @name fixes its function, parameters and key types;
 * another use must agree (D_AGG_REDEF, D_AGG_KEYS).
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "dt_cg_impl.h"
#include "dt_progdesc.h"
#include "dt_recval.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
#define ERR(cx, tag, n, ...) dt_pcb_error((cx)->pcb, tag, (n)->line, __VA_ARGS__)

#define DT_LLQUANTIZE_MAXBYTES	((DT_LQUANTIZE_MAXLEVELS + 2) * 8)

/* llquantize(v, factor, low, high, nsteps): the buckets of
 * dt_llquantize_bucket() (dt_recval.c), Oracle DTrace's layout. */
static int64_t llq_nbuckets(const int64_t *p)
{
	return dt_llquantize_nbuckets(p[0], p[1], p[2], p[3]);
}

static bool agg_has_incr(const dt_node_t *call, dt_aggfunc_t f)
{
	int n = dt_node_count(call->args);
	return (f == DT_AGG_QUANTIZE && n == 2) ||
	       (f == DT_AGG_LQUANTIZE && n == 5) ||
	       (f == DT_AGG_LLQUANTIZE && n == 6);
}

/* How key k is stored: an integer in an 8-byte slot, a string in
 * strsize bytes, a struct or union as its bytes in a slot of 8-byte
 * words, a stack() or ustack() as its record (dt_rec.h). */
static void key_desc(dt_cg_state_t *st, dt_node_t *k, dt_recdesc_t *rd)
{
	memset(rd, 0, sizeof(*rd));
	if (dt_check_is_stack_call(k)) {
		dt_cg_stack_desc(st, k, rd);
		return;
	}
	if (dt_sou_type(k->type)) {	/* its bytes */
		rd->kind = DT_RK_MEM;
		rd->size = (uint32_t)k->type->size;
		rd->type = k->type;
		return;
	}
	bool s = dt_check_is_string(k->type);
	rd->kind = s ? DT_RK_STRING : DT_RK_INT;
	rd->size = s ? st->strroom : (k->type->kind == DT_TK_PTR ? 8 :
		   (uint32_t)k->type->size);
	rd->is_signed = k->type->is_signed;
	rd->type = k->type;
}

static uint32_t key_slot(const dt_recdesc_t *rd)
{
	if (rd->kind == DT_RK_MEM)	/* as dt_var_slot_size() */
		return (rd->size + 7) & ~7u;
	return rd->kind == DT_RK_INT ? 8 : rd->size;
}

/* Whether ad lives in a per-CPU array of one entry: no keys, a map of its
 * own, and a value that is not all zeros once it recorded something. */
static bool agg_is_array(const dt_aggdesc_t *ad)
{
	if (ad->nkeys != 0 || ad->id >= DT_AGG_OWN_MAPS)
		return false;
	switch (ad->func) {
	case DT_AGG_COUNT: case DT_AGG_AVG: case DT_AGG_MIN: case DT_AGG_MAX:
	case DT_AGG_STDDEV:
		return true;
	default:
		return false;
	}
}

/*
 * The map of ad, a per-CPU hash whose keys start with the aggregation's
 * id (8 bytes).  The first DT_AGG_OWN_MAPS aggregations have a map each;
 * later ones share one per key and value size (a program may use at most
 * 64 maps), each adding its share of aggsize to the map's entries.  (A
 * map of its own each is kept where it fits: new entries in a shared map
 * were seen to fail under profile probes, where the kernel allocates map
 * elements from small per-map caches.)
 */
/* The size of the value of ad's hash as CPU slots (DT_AGG_SLOT bytes
 * each, one per possible CPU), 0 when it does not fit DT_AGG_SLOTS_MAX:
 * then a per-CPU hash. */
static uint32_t agg_slots(const dt_aggdesc_t *ad)
{
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus <= 0 || ad->valsize > DT_AGG_SLOT ||
	    (uint64_t)ncpus * DT_AGG_SLOT > DT_AGG_SLOTS_MAX)
		return 0;
	return (uint32_t)ncpus * DT_AGG_SLOT;
}

static void agg_map(dt_cg_state_t *st, dt_aggdesc_t *ad)
{
	if (ad->mstoff != 0)
		return;
	if (agg_is_array(ad)) {
		char aname[64];
		snprintf(aname, sizeof(aname), "agg_%s", ad->name);
		ad->map = dt_cg_map(st, aname, BPF_MAP_TYPE_PERCPU_ARRAY, 4,
				    ad->valsize, 1);
		return;
	}

	uint32_t ksize = DT_AGG_KEYPREFIX + ad->mkeysize;
	uint32_t slots = agg_slots(ad);
	uint64_t n = st->dtp->opt.aggsize / (ksize + ad->valsize);
	uint32_t want = n < 16 ? 16 : n > DT_AGG_MAP_MAX ? DT_AGG_MAP_MAX :
			(uint32_t)n;
	char name[64];

	if (ad->id < DT_AGG_OWN_MAPS)
		snprintf(name, sizeof(name), "agg_%s", ad->name);
	else if (ad->id >= DT_AGG_PLAIN && ad->id - DT_AGG_PLAIN <
		 DT_AGG_OWN_MAPS)
		snprintf(name, sizeof(name), "aggp_%s", ad->name);
	else
		snprintf(name, sizeof(name), "aggs_%u_%u", ksize, ad->valsize);
	if (slots != 0) {
		ad->map = dt_cg_map(st, name, BPF_MAP_TYPE_HASH, ksize, slots,
				    0);
		if (slots > st->aggslots_max)
			st->aggslots_max = slots;
	} else {
		ad->map = dt_cg_map(st, name, BPF_MAP_TYPE_PERCPU_HASH, ksize,
				    ad->valsize, 0);
	}
	if (ad->map->nentries < DT_AGG_MAP_MAX)
		ad->map->nentries += want;
	if (ad->map->nentries > DT_AGG_MAP_MAX)
		ad->map->nentries = DT_AGG_MAP_MAX;
}

/*
 * Keep ad, without keys, in the mstate when it has room: in its first
 * DT_CG_AGGMST bytes, else after the this-> variables (a page of its own,
 * still cheaper than a map; at most DT_CG_AGGMST_TAIL bytes, the rest of
 * that room is theirs), else in a map.  A function whose value may read as zeros
 * once it recorded (sum, the histograms: not agg_is_array()) has a word
 * before its value that each firing sets: whether this CPU recorded.
 */
static void agg_in_mstate(dt_cg_state_t *st, dt_aggdesc_t *ad)
{
	bool array = agg_is_array(ad);
	uint32_t size = ad->valsize + (array ? 0 : 8);

	if (ad->nkeys != 0)
		return;
	if (st->aggmst_used + size <= DT_CG_AGGMST) {
		ad->mstoff = st->off_aggmst + st->aggmst_used;
		st->aggmst_used += size;
	} else if (st->aggmst_tail + size <= DT_CG_AGGMST_TAIL &&
		   st->off_this + st->this_size + size <= DT_MSTATE_MAX) {
		ad->mstoff = st->off_this + st->this_size;
		st->this_size += size;
		st->aggmst_tail += size;
	} else {
		return;
	}
	if (!array) {
		ad->mstflag = true;
		ad->mstoff += 8;
	}
}

/* Which name (0 probeprov .. 3 probename) key k is, when it is one of
 * them as a whole; -1 otherwise. */
static int probe_key(const dt_node_t *k)
{
	if (k->kind != DT_N_IDENT || k->ident == NULL ||
	    k->ident->kind != DT_IK_BUILTIN)
		return -1;
	switch ((dt_bvar_t)k->ident->id) {
	case DT_BV_PROBEPROV: case DT_BV_PROBEMOD: case DT_BV_PROBEFUNC:
	case DT_BV_PROBENAME:
		return (int)k->ident->id - DT_BV_PROBEPROV;
	default:
		return -1;
	}
}

/* The map's layout of ad's keys: the keys naming the probe in 8 bytes
 * (DT_AGG_PROBEKEY), unless the consumer aggregates it (by_consumer). */
static void agg_map_layout(dt_cg_state_t *st, dt_aggdesc_t *ad,
			   dt_node_t *keys, bool by_consumer)
{
	uint32_t off = 0;
	int i = 0;

	ad->moffset = dt_zalloc(sizeof(uint32_t) * (size_t)(ad->nkeys + 1));
	ad->strsize = st->strsize;
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++) {
		bool byprobe = !by_consumer && probe_key(k) >= 0;
		if (byprobe && ad->kprobe == NULL)
			ad->kprobe = dt_zalloc(sizeof(bool) *
					       (size_t)ad->nkeys);
		if (byprobe)
			ad->kprobe[i] = true;
		ad->moffset[i] = off;
		off += byprobe ? 8 : key_slot(&ad->keys[i]);
	}
	ad->mkeysize = off ? off : 8;
}

/* A part of ad (dt_rec.h) with id: its name and keys copied, no map, no
 * parts of its own; the key layout in its map is the caller's to set. */
static dt_aggdesc_t *agg_part_new(const dt_aggdesc_t *ad, int id)
{
	dt_aggdesc_t *p = dt_zalloc(sizeof(*p));

	*p = *ad;
	p->id = id;
	p->name = dt_strdup(ad->name);
	p->keys = dt_zalloc(sizeof(dt_recdesc_t) * (size_t)(ad->nkeys + 1));
	memcpy(p->keys, ad->keys, sizeof(dt_recdesc_t) * (size_t)ad->nkeys);
	p->ktypes = NULL;
	p->kprobe = NULL;
	p->moffset = dt_zalloc(sizeof(uint32_t) * (size_t)(ad->nkeys + 1));
	p->map = NULL;
	p->plain = p->byprid = NULL;
	p->pnames = NULL;
	return p;
}

/* The plain part of ad (dt_rec.h), made at its first use. */
static dt_aggdesc_t *agg_plain(dt_cg_state_t *st, dt_aggdesc_t *ad)
{
	if (ad->plain != NULL)
		return ad->plain;
	dt_aggdesc_t *p = agg_part_new(ad, ad->id + DT_AGG_PLAIN);
	for (int k = 0; k < ad->nkeys; k++)
		p->moffset[k] = ad->keys[k].offset;
	p->mkeysize = ad->keysize;
	agg_map(st, p);
	ad->plain = p;
	return p;
}

/* The part of ad by PRID (dt_rec.h), when each of its keys (the first
 * use's) names the probe and its value leaves room for the word "seen"
 * in a hash's CPU slot.  The array is sized when the maps are made
 * (dt_cg.c, final_sizes()).  DTRACE_BENCH_NOBYPRID leaves it out, and so
 * does DTRACE_BENCH_AGGSTOP, whose stages are the hash's. */
static void agg_byprid(dt_cg_state_t *st, dt_aggdesc_t *ad, dt_node_t *keys)
{
	if (ad->kprobe == NULL || ad->map == NULL ||
	    ad->map->type != BPF_MAP_TYPE_HASH || ad->id >= DT_AGG_OWN_MAPS ||
	    ad->valsize > DT_AGG_SLOT_SEEN ||
	    getenv("DTRACE_BENCH_NOBYPRID") || getenv("DTRACE_BENCH_AGGSTOP"))
		return;
	uint8_t *pnames = dt_zalloc((size_t)ad->nkeys + 1);
	int i = 0;
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++) {
		if (!ad->kprobe[i]) {
			free(pnames);
			return;
		}
		pnames[i] = (uint8_t)probe_key(k);
	}
	dt_aggdesc_t *p = agg_part_new(ad, ad->id);
	p->kprobe = dt_zalloc(sizeof(bool) * (size_t)ad->nkeys);
	memcpy(p->kprobe, ad->kprobe, sizeof(bool) * (size_t)ad->nkeys);
	memcpy(p->moffset, ad->moffset, sizeof(uint32_t) * (size_t)ad->nkeys);
	p->pnames = pnames;
	char name[64];
	snprintf(name, sizeof(name), "aggr_%s", ad->name);
	p->map = dt_cg_map(st, name, BPF_MAP_TYPE_ARRAY, 4, ad->map->vsize, 1);
	ad->byprid = p;
}

/* Whether this use's keys name the probe as ad's part by PRID holds. */
static bool keys_byprid(const dt_aggdesc_t *ad, dt_node_t *keys)
{
	int i = 0;

	if (ad->byprid == NULL)
		return false;
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++)
		if (probe_key(k) != ad->byprid->pnames[i])
			return false;
	return true;
}

/* Whether the keys of this use give a name of the probe wherever ad
 * keeps one (DT_AGG_PROBEKEY). */
static bool keys_fit(const dt_aggdesc_t *ad, dt_node_t *keys)
{
	int i = 0;

	for (dt_node_t *k = keys; k != NULL; k = k->next, i++)
		if (ad->kprobe[i] && probe_key(k) < 0)
			return false;
	return true;
}

/* The bytes of the value of f with params: the state dt_rec.h gives for
 * the function.  llquantize's buckets must fit a value. */
static uint32_t agg_valsize(dt_cg_t *cx, dt_node_t *call, dt_aggfunc_t f,
			    const int64_t *params)
{
	switch (f) {
	case DT_AGG_AVG: return 16;
	case DT_AGG_MIN: return 16;	/* value, count */
	case DT_AGG_MAX: return 16;
	case DT_AGG_STDDEV: return 32;
	case DT_AGG_QUANTIZE: return DT_QUANTIZE_NBUCKETS * 8;
	case DT_AGG_LQUANTIZE:
		return (uint32_t)((params[1] - params[0]) / params[2] + 2) * 8;
	case DT_AGG_LLQUANTIZE:
		if (llq_nbuckets(params) * 8 > DT_LLQUANTIZE_MAXBYTES)
			ERR(cx, D_AGG_ARGS, call, "llquantize( ) has too many "
			    "buckets (%lld, at most %d)",
			    (long long)llq_nbuckets(params),
			    DT_LLQUANTIZE_MAXBYTES / 8);
		return (uint32_t)llq_nbuckets(params) * 8;
	default:
		return 8;
	}
}

/* Whether the consumer aggregates this use of ad (keys, args) from a
 * record: a ustack() key, or ustackdepth anywhere in it. */
static bool use_by_consumer(const dt_aggdesc_t *ad, const dt_node_t *keys,
			    const dt_node_t *args)
{
	return dt_cg_agg_by_consumer(ad) || dt_check_has_udepth(keys) ||
	       dt_check_has_udepth(args);
}

/* The description of aggregation id, made at its first use n (which the
 * checker declared it by): its key and value layout, its map. */
static dt_aggdesc_t *agg_new(dt_cg_t *cx, dt_ident_t *id, dt_node_t *n)
{
	dt_cg_state_t *st = cx->st;
	dt_node_t *agg = n->l->kind == DT_N_AGG ? n->l : n->l->l;
	dt_node_t *keys = n->l->kind == DT_N_INDEX ? n->l->args : NULL;
	dt_aggfunc_t f = (dt_aggfunc_t)id->aggfunc;
	uint32_t valsize = agg_valsize(cx, n->r, f, id->params); /* may fail */
	uint32_t ksize = 0;

	/* every check that can fail comes before the first allocation */
	for (dt_node_t *k = keys; k != NULL; k = k->next) {
		dt_recdesc_t rd;
		key_desc(st, k, &rd);
		ksize += key_slot(&rd);
	}
	if (ksize + DT_AGG_KEYPREFIX > st->key_max)
		ERR(cx, D_AGG_KEYS, agg, "the keys of @%s take %u bytes, more "
		    "than the %u available", agg->name, ksize,
		    st->key_max - DT_AGG_KEYPREFIX);

	dt_aggdesc_t *ad = dt_zalloc(sizeof(*ad));
	ad->id = dt_pd_naggs(cx->dtp);	/* agg_map() reads it */
	ad->name = dt_strdup(agg->name);
	ad->func = f;
	ad->valsize = valsize;
	memcpy(ad->params, id->params, sizeof(ad->params));
	ad->nkeys = id->nkeys;
	ad->keys = dt_zalloc(sizeof(dt_recdesc_t) * (size_t)(ad->nkeys + 1));
	ad->ktypes = dt_zalloc(sizeof(dt_type_t *) * (size_t)(ad->nkeys + 1));
	memcpy(ad->ktypes, id->keys, sizeof(dt_type_t *) * (size_t)ad->nkeys);
	uint32_t off = 0;
	int i = 0;
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++) {
		dt_recdesc_t *rd = &ad->keys[i];
		key_desc(st, k, rd);
		rd->offset = off;
		off += key_slot(rd);
	}
	ad->keysize = off ? off : 8;
	bool by_consumer = use_by_consumer(ad, keys, n->r->args);
	agg_map_layout(st, ad, keys, by_consumer);
	if (!by_consumer)
		agg_in_mstate(st, ad);
	agg_map(st, ad);
	if (!by_consumer)
		agg_byprid(st, ad, keys);
	dt_pd_agg_add(cx->dtp, ad);
	id->id = ad->id;
	return ad;
}

/* ---- code ---- */

/* r1 = floor(log2(r1)) for r1 >= 1 (unsigned); uses r3. */
static void emit_log2(dt_cg_t *cx)
{
	EMIT(DT_MOV64_IMM(DT_R2, 0));
	for (int s = 32; s >= 1; s /= 2) {
		int skip = dt_as_label(cx->as);
		EMIT(DT_MOV64_REG(DT_R3, DT_R1));
		EMIT(DT_ALU64_IMM(BPF_RSH, DT_R3, s));
		dt_as_jump(cx->as, BPF_JEQ, DT_R3, 0, skip);
		EMIT(DT_MOV64_REG(DT_R1, DT_R3));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, s));
		dt_as_place(cx->as, skip);
	}
	EMIT(DT_MOV64_REG(DT_R1, DT_R2));
}

/* r1 = the quantize bucket of v. */
static void emit_quantize_bucket(dt_cg_t *cx, int v)
{
	int neg = dt_as_label(cx->as), done = dt_as_label(cx->as);

	EMIT(DT_MOV64_IMM(DT_R1, DT_QUANTIZE_ZERO));
	dt_as_jump(cx->as, BPF_JEQ, v, 0, done);
	dt_as_jump(cx->as, BPF_JSLT, v, 0, neg);
	EMIT(DT_MOV64_REG(DT_R1, v));
	emit_log2(cx);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, DT_QUANTIZE_ZERO + 1));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, neg);
	EMIT(DT_MOV64_REG(DT_R1, v));
	EMIT(DT_NEG64(DT_R1));
	emit_log2(cx);
	EMIT(DT_NEG64(DT_R1));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, DT_QUANTIZE_ZERO - 1));
	dt_as_jump(cx->as, BPF_JSGE, DT_R1, 0, done);
	EMIT(DT_MOV64_IMM(DT_R1, 0));
	dt_as_place(cx->as, done);
}

/* r1 = the lquantize bucket of v: 0 below low, levels + 1 at or above
 * high, else (v - low) / step + 1. */
static void emit_lquantize_bucket(dt_cg_t *cx, int v, const int64_t *p)
{
	int64_t levels = (p[1] - p[0]) / p[2];
	int done = dt_as_label(cx->as);

	EMIT(DT_MOV64_IMM(DT_R1, 0));
	dt_as_jump(cx->as, BPF_JSLT, v, (int32_t)p[0], done);
	EMIT(DT_MOV64_IMM(DT_R1, (int32_t)(levels + 1)));
	dt_as_jump(cx->as, BPF_JSGE, v, (int32_t)p[1], done);
	EMIT(DT_MOV64_REG(DT_R1, v));
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R1, (int32_t)p[0]));
	if (p[2] != 1)
		EMIT(DT_ALU64_IMM(BPF_DIV, DT_R1, (int32_t)p[2]));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
	dt_as_place(cx->as, done);
}

/* r1 = the bin of abs(v) in r3 counted from bin0, for order mag: one
 * bin per value (ghost bins between) in order 0 when nsteps > factor,
 * else a / (factor^(mag+1) / nsteps) past the order's first bin. */
static void emit_llq_order_bin(dt_cg_t *cx, const int64_t *p, int64_t mag)
{
	int64_t sf = p[3] / p[0], k = p[3] - sf;

	EMIT(DT_MOV64_REG(DT_R1, DT_R3));
	if (p[1] == 0 && p[3] > p[0] && mag == 0) {
		EMIT(DT_ALU64_IMM(BPF_MUL, DT_R1, (int32_t)sf));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, (int32_t)(1 - sf)));
		return;
	}
	dt_as_ld_imm64(cx->as, DT_R2,
		       (uint64_t)(dt_agg_ipow(p[0], mag + 1) / p[3]));
	EMIT(DT_ALU64_REG(BPF_DIV, DT_R1, DT_R2));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1,
			  (int32_t)(1 + (mag - p[1]) * k - sf)));
}

/* r1 = the llquantize bucket of v (dt_llquantize_bucket()): the bin of
 * abs(v) (r3, unsigned: INT64_MIN lands past the top) by order, then
 * above or below bin0 by v's sign; uses r2 and r3. */
static void emit_llquantize_bucket(dt_cg_t *cx, int v, const int64_t *p)
{
	int sign = dt_as_label(cx->as), neg = dt_as_label(cx->as);
	int done = dt_as_label(cx->as), pos = dt_as_label(cx->as);
	int64_t bin0 = dt_llquantize_bin0(p[0], p[1], p[2], p[3]);

	EMIT(DT_MOV64_IMM(DT_R1, 0));
	EMIT(DT_MOV64_REG(DT_R3, v));
	dt_as_jump(cx->as, BPF_JSGE, v, 0, pos);
	EMIT(DT_NEG64(DT_R3));
	dt_as_place(cx->as, pos);
	dt_as_ld_imm64(cx->as, DT_R2, (uint64_t)dt_agg_ipow(p[0], p[1]));
	dt_as_jump_reg(cx->as, BPF_JLT, DT_R3, DT_R2, sign);
	for (int64_t mag = p[1]; mag <= p[2]; mag++) {
		int next = dt_as_label(cx->as);

		dt_as_ld_imm64(cx->as, DT_R2,
			       (uint64_t)dt_agg_ipow(p[0], mag + 1));
		dt_as_jump_reg(cx->as, BPF_JGE, DT_R3, DT_R2, next);
		emit_llq_order_bin(cx, p, mag);
		dt_as_jump(cx->as, BPF_JA, 0, 0, sign);
		dt_as_place(cx->as, next);
	}
	EMIT(DT_MOV64_IMM(DT_R1, (int32_t)bin0));	/* nord + 1: the top */
	dt_as_place(cx->as, sign);
	dt_as_jump(cx->as, BPF_JSLT, v, 0, neg);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, (int32_t)bin0));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, neg);
	EMIT(DT_NEG64(DT_R1));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, (int32_t)bin0));
	dt_as_place(cx->as, done);
}

/* *(r0 + 8 * r1) += incr (w, or 1 when w < 0), r1 clamped for the
 * verifier to the last bucket. */
static void emit_bucket_add(dt_cg_t *cx, uint32_t nbuckets, int w)
{
	int ok = dt_as_label(cx->as);

	dt_as_jump(cx->as, BPF_JLE, DT_R1, (int32_t)(nbuckets - 1), ok);
	EMIT(DT_MOV64_IMM(DT_R1, (int32_t)(nbuckets - 1)));
	dt_as_place(cx->as, ok);
	EMIT(DT_ALU64_IMM(BPF_LSH, DT_R1, 3));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R1));
	EMIT(DT_LOAD(BPF_DW, DT_R2, DT_R0, 0));
	if (w >= 0)
		EMIT(DT_ALU64_REG(BPF_ADD, DT_R2, w));
	else
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	EMIT(DT_STORE(BPF_DW, DT_R0, 0, DT_R2));
}

/* *(u64 *)(r0 + off) += reg, or += 1 when reg < 0 */
static void emit_add(dt_cg_t *cx, int16_t off, int reg)
{
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R0, off));
	if (reg >= 0)
		EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, reg));
	else
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
	EMIT(DT_STORE(BPF_DW, DT_R0, off, DT_R1));
}

/* stddev's sum of squares: the 128-bit (lo at +16, hi at +24) += v * v,
 * with |v| split in 32-bit halves h, l: v^2 = h^2 2^64 + 2hl 2^32 + l^2. */
static void emit_sumsq(dt_cg_t *cx, int v)
{
	int pos = dt_as_label(cx->as), nc1 = dt_as_label(cx->as);
	int nc2 = dt_as_label(cx->as);

	EMIT(DT_MOV64_REG(DT_R1, v));
	dt_as_jump(cx->as, BPF_JSGE, DT_R1, 0, pos);
	EMIT(DT_NEG64(DT_R1));
	dt_as_place(cx->as, pos);
	EMIT(DT_MOV64_REG(DT_R2, DT_R1));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R2, 32));		/* h */
	EMIT(DT_MOV32_REG(DT_R1, DT_R1));		/* l */
	EMIT(DT_MOV64_REG(DT_R3, DT_R2));
	EMIT(DT_ALU64_REG(BPF_MUL, DT_R3, DT_R1));	/* mid = h l */
	EMIT(DT_ALU64_REG(BPF_MUL, DT_R1, DT_R1));	/* l^2 */
	EMIT(DT_ALU64_REG(BPF_MUL, DT_R2, DT_R2));	/* h^2 */
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R4, 31));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R2, DT_R4));	/* hi */
	EMIT(DT_ALU64_IMM(BPF_LSH, DT_R3, 33));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R3));	/* lo */
	dt_as_jump_reg(cx->as, BPF_JGE, DT_R1, DT_R3, nc1);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	dt_as_place(cx->as, nc1);
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R0, 16));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R1));
	dt_as_jump_reg(cx->as, BPF_JGE, DT_R4, DT_R1, nc2);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	dt_as_place(cx->as, nc2);
	EMIT(DT_STORE(BPF_DW, DT_R0, 16, DT_R4));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R0, 24));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R2));
	EMIT(DT_STORE(BPF_DW, DT_R0, 24, DT_R4));
}

/* Update the value at r0 with v (and increment w, or -1). */
static void emit_update(dt_cg_t *cx, dt_aggdesc_t *ad, int v, int w)
{
	int skip = dt_as_label(cx->as);

	switch (ad->func) {
	case DT_AGG_COUNT:
		emit_add(cx, 0, -1);
		break;
	case DT_AGG_SUM:
		emit_add(cx, 0, v);
		break;
	case DT_AGG_AVG:
		emit_add(cx, 0, -1);
		emit_add(cx, 8, v);
		break;
	case DT_AGG_STDDEV:
		emit_add(cx, 0, -1);
		emit_add(cx, 8, v);
		emit_sumsq(cx, v);
		break;
	case DT_AGG_MIN:
	case DT_AGG_MAX: {
		int store = dt_as_label(cx->as);
		/* count first: the first value on this CPU is taken as is */
		EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R0, 8));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
		EMIT(DT_STORE(BPF_DW, DT_R0, 8, DT_R1));
		dt_as_jump(cx->as, BPF_JEQ, DT_R1, 1, store);
		EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
		dt_as_jump_reg(cx->as, ad->func == DT_AGG_MIN ? BPF_JSLE :
			       BPF_JSGE, DT_R1, v, skip);
		dt_as_place(cx->as, store);
		EMIT(DT_STORE(BPF_DW, DT_R0, 0, v));
		break;
	}
	case DT_AGG_QUANTIZE:
		emit_quantize_bucket(cx, v);
		emit_bucket_add(cx, DT_QUANTIZE_NBUCKETS, w);
		break;
	case DT_AGG_LQUANTIZE:
		emit_lquantize_bucket(cx, v, ad->params);
		emit_bucket_add(cx, ad->valsize / 8, w);
		break;
	case DT_AGG_LLQUANTIZE:
		emit_llquantize_bucket(cx, v, ad->params);
		emit_bucket_add(cx, ad->valsize / 8, w);
		break;
	default:
		dt_cg_ice(cx, "aggregating function");
	}
	dt_as_place(cx->as, skip);
}

/* r3 = the initial value of a new entry: zeros from "aggzero" (for min
 * and max too: count 0).  Jumps to fail when the zero map cannot be
 * read. */
static void emit_initial(dt_cg_t *cx, int fail)
{
	dt_cg_array_value(cx, dt_cg_map(cx->st, "aggzero", BPF_MAP_TYPE_ARRAY,
					4, 0, 1), fail);
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
}

/* Stage ad's map key at off_key: the id, then each key, those naming the
 * probe as DT_AGG_PROBEKEY (the PRID read from the mstate). */
static void emit_key(dt_cg_t *cx, dt_aggdesc_t *ad, dt_node_t *keys)
{
	uint32_t base = cx->st->off_key + DT_AGG_KEYPREFIX;
	int i = 0;

	if (ad->kprobe == NULL) {
		dt_cg_key(cx, keys, ad->id, DT_AGG_KEYPREFIX + ad->keysize);
		return;
	}
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)cx->st->off_key, ad->id));
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++) {
		uint32_t off = base + ad->moffset[i];
		int name = probe_key(k);

		if (!ad->kprobe[i]) {
			dt_cg_key_part(cx, k, off);
			continue;
		}
		EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(pub.prid)));
		if (name != 0) {
			EMIT(DT_MOV64_IMM(DT_R1, name));
			EMIT(DT_ALU64_IMM(BPF_LSH, DT_R1, 32));
			EMIT(DT_ALU64_REG(BPF_OR, DT_R0, DT_R1));
		}
		EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)off, DT_R0));
	}
}

static void emit_lookup(dt_cg_t *cx, dt_aggdesc_t *ad)
{
	dt_as_load_map(cx->as, DT_R1, ad->map);
	dt_cg_mst_ptr(cx, DT_R2, cx->st->off_key);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
}

static void emit_create(dt_cg_t *cx, dt_aggdesc_t *ad, int have, int drop);

/* r0 = the entry of the firing's PRID in ad's array by PRID: goto have;
 * on to the hash for a PRID beyond the array. */
static void emit_byprid_lookup(dt_cg_t *cx, dt_aggdesc_t *ad, int have)
{
	dt_as_load_map(cx->as, DT_R1, ad->byprid->map);
	dt_cg_mst_ptr(cx, DT_R2, DT_MST_OFF(pub.prid));
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, have);
}

bool dt_cg_agg_by_consumer(const dt_aggdesc_t *agg)
{
	for (int k = 0; k < agg->nkeys; k++)
		if (agg->keys[k].kind == DT_RK_USTACK)
			return true;
	return false;
}

/* The scratch word where a hash of CPU slots keeps this CPU's index while
 * the entry is looked up or created (the helpers take r1 to r5). */
#define SLOT_SCRATCH	16

/* Save this CPU's index (agg_slots()). */
static void emit_slot_index(dt_cg_t *cx)
{
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_smp_processor_id));
	EMIT(DT_STORE(BPF_DW, DT_R9,
		      (int16_t)(cx->st->off_scratch + SLOT_SCRATCH), DT_R0));
}

/* r0, the entry's value, becomes this CPU's slot of it; goto drop for a
 * CPU beyond the slots (never: they are the possible CPUs). */
static void emit_slot(dt_cg_t *cx, const dt_aggdesc_t *ad, int drop)
{
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R9,
		     (int16_t)(cx->st->off_scratch + SLOT_SCRATCH)));
	dt_as_jump(cx->as, BPF_JGE, DT_R1, ad->map->vsize / DT_AGG_SLOT,
		   drop);
	EMIT(DT_ALU64_IMM(BPF_MUL, DT_R1, DT_AGG_SLOT));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R1));
}

/*
 * The benchmark (bench/firing.sh) builds a keyed aggregation that stops
 * after one stage of its update, named by DTRACE_BENCH_AGGSTOP: "key"
 * (the key staged, no lookup) or "lookup" (looked up, nothing updated).
 * Returns true when the update stops there (done placed after it).
 */
static bool bench_agg_stop(dt_cg_t *cx, dt_aggdesc_t *ad, int done)
{
	const char *s = getenv("DTRACE_BENCH_AGGSTOP");

	if (s == NULL)
		return false;
	if (strcmp(s, "lookup") == 0)
		emit_lookup(cx, ad);
	else if (strcmp(s, "key") != 0)
		return false;
	dt_as_place(cx->as, done);
	return true;
}

void dt_cg_agg_assign(dt_cg_t *cx, dt_node_t *n)
{
	dt_aggdesc_t *ad = n->ident->id < 0 ? agg_new(cx, n->ident, n) :
			   dt_pd_agg(cx->dtp, n->ident->id);
	dt_node_t *keys = n->l->kind == DT_N_INDEX ? n->l->args : NULL;
	dt_node_t *call = n->r;
	int have = dt_as_label(cx->as), drop = dt_as_label(cx->as);
	int done = dt_as_label(cx->as);
	int v = -1, w = -1;
	bool byprid = false;

	if (use_by_consumer(ad, keys, call->args)) {
		/* the consumer writes the entry with its own key */
		if (ad->kprobe != NULL)
			agg_plain(cx->st, ad);
		dt_cg_agg_sample(cx, ad, keys, call->args,
				 agg_has_incr(call, ad->func) ?
				 dt_node_nth(call->args,
					     dt_node_count(call->args) - 1) :
				 NULL, n->line);
		return;
	}

	/* the value and the increment, then the key */
	if (call->args != NULL)
		v = dt_cg_expr(cx, call->args);
	if (agg_has_incr(call, ad->func))
		w = dt_cg_expr(cx, dt_node_nth(call->args,
					       dt_node_count(call->args) - 1));
	if (ad->mstoff != 0) {
		/* this CPU's value, in its mstate: always there */
		if (ad->mstflag)
			EMIT(DT_STORE_IMM(BPF_DW, DT_R9,
					  (int16_t)(ad->mstoff - 8), 1));
		dt_cg_mst_ptr(cx, DT_R0, ad->mstoff);
		emit_update(cx, ad, v, w);
		goto out;
	}
	if (ad->map->type == BPF_MAP_TYPE_PERCPU_ARRAY) {
		dt_cg_array_value(cx, ad->map, drop);
		dt_as_jump(cx->as, BPF_JA, 0, 0, have);
	} else if (keys == NULL) {
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)cx->st->off_key,
				  ad->id));
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)cx->st->off_key + 8,
				  0));
	} else if (keys_byprid(ad, keys)) {
		byprid = true;
		emit_slot_index(cx);
		emit_byprid_lookup(cx, ad, have);
		emit_key(cx, ad, keys);
	} else {
		if (ad->kprobe != NULL && !keys_fit(ad, keys))
			ad = agg_plain(cx->st, ad);
		emit_key(cx, ad, keys);
	}

	if (ad->map->type != BPF_MAP_TYPE_PERCPU_ARRAY &&
	    bench_agg_stop(cx, ad, done))
		goto out;
	if (ad->map->type == BPF_MAP_TYPE_HASH && !byprid)
		emit_slot_index(cx);
	if (ad->map->type != BPF_MAP_TYPE_PERCPU_ARRAY)
		emit_create(cx, ad, have, drop);
	dt_as_place(cx->as, drop);
	dt_cg_count_drop(cx, offsetof(dt_cpuinfo_t, agg_drops));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, have);
	if (ad->map->type == BPF_MAP_TYPE_HASH)
		emit_slot(cx, ad, drop);
	if (byprid)	/* the array's, or a hash slot's spare word */
		EMIT(DT_STORE_IMM(BPF_DW, DT_R0, DT_AGG_SLOT_SEEN, 1));
	emit_update(cx, ad, v, w);
	dt_as_place(cx->as, done);
out:
	if (w >= 0)
		dt_regs_give(cx, w);
	if (v >= 0)
		dt_regs_give(cx, v);
}

/* r0 = the entry of the key staged at off_key, created from zeros on
 * its first use on this CPU: goto have, or goto drop without room. */
static void emit_create(dt_cg_t *cx, dt_aggdesc_t *ad, int have, int drop)
{
	emit_lookup(cx, ad);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, have);
	/* first use of the key on this CPU: create the entry */
	emit_initial(cx, drop);
	dt_as_load_map(cx->as, DT_R1, ad->map);
	dt_cg_mst_ptr(cx, DT_R2, cx->st->off_key);
	EMIT(DT_MOV64_IMM(DT_R4, BPF_NOEXIST));
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_update_elem));
	emit_lookup(cx, ad);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, have);
	dt_as_jump(cx->as, BPF_JA, 0, 0, drop);
}
