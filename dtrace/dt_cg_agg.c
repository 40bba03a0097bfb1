/*
 * dt_cg_agg.c: aggregations, @name[keys] = func(args).
 *
 * Each aggregation is a PERCPU_HASH map "agg_NAME" keyed by its tuple
 * (integers in 8-byte slots, strings strsize bytes NUL padded; the
 * anonymous key is one 8-byte 0).  Its value is the state dt_rec.h gives
 * for the function.  A firing looks the key up; a missing entry is created
 * from zeros (the "aggzero" map, sized to the largest value) or, for min
 * and max, from INT64_MAX / INT64_MIN, then updated in place: the map is
 * per CPU, so no atomics are needed.  An entry that finds no room counts
 * cpuinfo.agg_drops.
 *
 * The first use of @name fixes its function, parameters and key types;
 * another use must agree (D_AGG_REDEF, D_AGG_KEYS).
 */
#include <string.h>
#include <stdio.h>

#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
#define ERR(cx, tag, n, ...) dt_pcb_error((cx)->pcb, tag, (n)->line, __VA_ARGS__)

static const dt_aggfunc_t dt_aggfuncs[] = {
	[DT_F_COUNT] = DT_AGG_COUNT, [DT_F_SUM] = DT_AGG_SUM,
	[DT_F_AVG] = DT_AGG_AVG, [DT_F_MIN] = DT_AGG_MIN,
	[DT_F_MAX] = DT_AGG_MAX, [DT_F_STDDEV] = DT_AGG_STDDEV,
	[DT_F_QUANTIZE] = DT_AGG_QUANTIZE,
	[DT_F_LQUANTIZE] = DT_AGG_LQUANTIZE,
	[DT_F_LLQUANTIZE] = DT_AGG_LLQUANTIZE,
};

#define DT_LQUANTIZE_MAXLEVELS	4094

static int nargs_of(const dt_node_t *a)
{
	int k = 0;
	for (; a != NULL; a = a->next)
		k++;
	return k;
}

static dt_node_t *nth_arg(dt_node_t *a, int i)
{
	while (i-- > 0 && a != NULL)
		a = a->next;
	return a;
}

static int64_t const_arg(dt_cg_t *cx, dt_node_t *call, int i,
			 const char *what)
{
	dt_node_t *a = nth_arg(call->args, i);
	if (!a->is_const)
		ERR(cx, D_AGG_ARGS, a, "%s( ) %s must be an integer constant",
		    call->name, what);
	return (int64_t)a->ival;
}

/* Function parameters (lquantize) and the value size. */
static uint32_t agg_params(dt_cg_t *cx, dt_node_t *call, dt_aggfunc_t f,
			   int64_t params[4])
{
	memset(params, 0, sizeof(int64_t) * 4);
	switch (f) {
	case DT_AGG_AVG: return 16;
	case DT_AGG_STDDEV: return 32;
	case DT_AGG_QUANTIZE: return DT_QUANTIZE_NBUCKETS * 8;
	case DT_AGG_LQUANTIZE: {
		int64_t lo = const_arg(cx, call, 1, "lower bound");
		int64_t hi = const_arg(cx, call, 2, "upper bound");
		int64_t step = nargs_of(call->args) > 3 ?
			       const_arg(cx, call, 3, "step") : 1;
		if (step <= 0 || step > INT32_MAX)
			ERR(cx, D_AGG_ARGS, call, "lquantize( ) step must be "
			    "greater than zero");
		if (hi <= lo || lo < INT32_MIN || hi > INT32_MAX)
			ERR(cx, D_AGG_ARGS, call, "lquantize( ) upper bound "
			    "must be greater than lower bound");
		if ((hi - lo) / step > DT_LQUANTIZE_MAXLEVELS)
			ERR(cx, D_AGG_ARGS, call, "lquantize( ) has too many "
			    "levels (at most %d)", DT_LQUANTIZE_MAXLEVELS);
		if ((hi - lo) % step != 0)
			ERR(cx, D_AGG_ARGS, call, "lquantize( ) upper bound "
			    "must be lower bound plus a multiple of step");
		params[0] = lo;
		params[1] = hi;
		params[2] = step;
		return (uint32_t)((hi - lo) / step + 2) * 8;
	}
	default:
		return 8;
	}
}

static bool agg_has_incr(const dt_node_t *call, dt_aggfunc_t f)
{
	int n = nargs_of(call->args);
	return (f == DT_AGG_QUANTIZE && n == 2) ||
	       (f == DT_AGG_LQUANTIZE && n == 5);
}

static dt_aggdesc_t *agg_new(dt_cg_t *cx, dt_node_t *agg, dt_node_t *call,
			     dt_aggfunc_t f, dt_node_t *keys)
{
	dt_cg_state_t *st = cx->st;
	dt_aggdesc_t *ad = dt_zalloc(sizeof(*ad));
	char name[256];

	ad->id = st->naggs;
	ad->name = dt_strdup(agg->name);
	ad->func = f;
	ad->valsize = agg_params(cx, call, f, ad->params);
	ad->nkeys = nargs_of(keys);
	ad->keys = dt_zalloc(sizeof(dt_recdesc_t) * (size_t)(ad->nkeys + 1));
	uint32_t off = 0;
	int i = 0;
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++) {
		dt_recdesc_t *rd = &ad->keys[i];
		bool s = dt_check_is_string(k->type);
		rd->kind = s ? DT_RK_STRING : DT_RK_INT;
		rd->offset = off;
		rd->size = s ? st->strsize : (k->type->kind == DT_TK_PTR ? 8 :
			   (uint32_t)k->type->size);
		rd->is_signed = k->type->is_signed;
		rd->type = k->type;
		off += s ? st->strsize : 8;
	}
	ad->keysize = off ? off : 8;
	if (ad->keysize > st->key_max)
		ERR(cx, D_AGG_KEYS, agg, "the keys of @%s take %u bytes, more "
		    "than the %u available", agg->name, ad->keysize,
		    st->key_max);
	uint64_t n = cx->dtp->opt.aggsize / (ad->keysize + ad->valsize);
	snprintf(name, sizeof(name), "agg_%s", agg->name);
	ad->map = dt_cg_map(st, name, BPF_MAP_TYPE_PERCPU_HASH, ad->keysize,
			    ad->valsize, n < 16 ? 16 : n > 1000000 ? 1000000 :
			    (uint32_t)n);
	st->aggs = dt_realloc(st->aggs, sizeof(*st->aggs) *
			      (size_t)(st->naggs + 1));
	st->aggs[st->naggs++] = ad;

	dt_ident_t *id = dt_zalloc(sizeof(*id));
	id->name = ad->name;
	id->kind = DT_IK_AGG;
	id->id = ad->id;
	id->nkeys = ad->nkeys;
	id->line = agg->line;
	id->next = st->vars;
	st->vars = id;
	return ad;
}

static void agg_match(dt_cg_t *cx, dt_aggdesc_t *ad, dt_node_t *agg,
		      dt_node_t *call, dt_aggfunc_t f, dt_node_t *keys)
{
	int64_t params[4];

	if (ad->func != f)
		ERR(cx, D_AGG_REDEF, call, "@%s: aggregation redefined",
		    agg->name);
	agg_params(cx, call, f, params);
	if (memcmp(params, ad->params, sizeof(params)) != 0)
		ERR(cx, D_AGG_REDEF, call, "@%s: %s( ) parameters differ from "
		    "a previous use", agg->name, call->name);
	int i = 0;
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++)
		if (i >= ad->nkeys || dt_check_is_string(k->type) !=
		    (ad->keys[i].kind == DT_RK_STRING))
			break;
	if (i != ad->nkeys || nth_arg(keys, i) != NULL)
		ERR(cx, D_AGG_KEYS, agg, "@%s: keys differ in number or type "
		    "from a previous use", agg->name);
}

void dt_check_agg_assign(dt_cg_t *cx, dt_node_t *n)
{
	dt_node_t *agg = n->l->kind == DT_N_AGG ? n->l : n->l->l;
	dt_node_t *keys = n->l->kind == DT_N_INDEX ? n->l->args : NULL;
	dt_node_t *call = n->r;
	const dt_funcinfo_t *fi = call->kind == DT_N_CALL ?
				  dt_func_lookup(call->name) : NULL;

	if (fi == NULL || fi->fclass != DT_FC_AGGFUNC)
		ERR(cx, D_AGG_FUNC, n, "@%s: an aggregation must be assigned "
		    "an aggregating function", agg->name);
	if (!fi->implemented)
		ERR(cx, D_FUNC_UNDEF, call, "%s( ) is not supported yet",
		    call->name);
	int na = nargs_of(call->args);
	if (na < fi->minargs || na > fi->maxargs)
		ERR(cx, D_PROTO_LEN, call, "%s( ) prototype mismatch: %d "
		    "arguments passed", call->name, na);
	for (dt_node_t *a = call->args; a != NULL; a = a->next)
		if (!dt_type_is_scalar(dt_check_expr(cx, a)))
			ERR(cx, D_PROTO_ARG, a, "%s( ) argument has type %s, "
			    "not an integer", call->name, a->type->name);
	for (dt_node_t *k = keys; k != NULL; k = k->next) {
		dt_type_t *t = dt_check_expr(cx, k);
		if (!dt_type_is_scalar(t) && !dt_check_is_string(t))
			ERR(cx, D_AGG_KEYS, k, "@%s: a key must be an integer "
			    "or a string, not %s", agg->name, t->name);
	}
	dt_aggfunc_t f = dt_aggfuncs[fi->func];
	dt_ident_t *id = dt_var_lookup(cx->st, DT_IK_AGG, agg->name);
	if (id == NULL)
		agg_new(cx, agg, call, f, keys);
	else
		agg_match(cx, cx->st->aggs[id->id], agg, call, f, keys);
	id = dt_var_lookup(cx->st, DT_IK_AGG, agg->name);
	agg->ident = id;
	n->ident = id;
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
	case DT_AGG_MAX:
		EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
		dt_as_jump_reg(cx->as, ad->func == DT_AGG_MIN ? BPF_JSLE :
			       BPF_JSGE, DT_R1, v, skip);
		EMIT(DT_STORE(BPF_DW, DT_R0, 0, v));
		break;
	case DT_AGG_QUANTIZE:
		emit_quantize_bucket(cx, v);
		emit_bucket_add(cx, DT_QUANTIZE_NBUCKETS, w);
		break;
	case DT_AGG_LQUANTIZE:
		emit_lquantize_bucket(cx, v, ad->params);
		emit_bucket_add(cx, ad->valsize / 8, w);
		break;
	default:
		dt_cg_ice(cx, "aggregating function");
	}
	dt_as_place(cx->as, skip);
}

/* r3 = the initial value of a new entry: zeros from "aggzero", or the
 * identity of min / max staged in the scratch area.  Jumps to fail when
 * the zero map cannot be read. */
static void emit_initial(dt_cg_t *cx, dt_aggdesc_t *ad, int fail)
{
	uint32_t scr = cx->st->off_scratch + 24;

	if (ad->func == DT_AGG_MIN || ad->func == DT_AGG_MAX) {
		dt_as_ld_imm64(cx->as, DT_R3, ad->func == DT_AGG_MIN ?
			       (uint64_t)INT64_MAX : (uint64_t)INT64_MIN);
		EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)scr, DT_R3));
		dt_cg_mst_ptr(cx, DT_R3, scr);
		return;
	}
	dt_cg_array_value(cx, dt_cg_map(cx->st, "aggzero", BPF_MAP_TYPE_ARRAY,
					4, 0, 1), fail);
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
}

static void emit_lookup(dt_cg_t *cx, dt_aggdesc_t *ad)
{
	dt_as_load_map(cx->as, DT_R1, ad->map);
	dt_cg_mst_ptr(cx, DT_R2, cx->st->off_key);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
}

void dt_cg_agg_assign(dt_cg_t *cx, dt_node_t *n)
{
	dt_aggdesc_t *ad = cx->st->aggs[n->ident->id];
	dt_node_t *keys = n->l->kind == DT_N_INDEX ? n->l->args : NULL;
	dt_node_t *call = n->r;
	int have = dt_as_label(cx->as), drop = dt_as_label(cx->as);
	int done = dt_as_label(cx->as);
	int v = -1, w = -1;

	/* the value and the increment, then the key */
	if (call->args != NULL)
		v = dt_cg_expr(cx, call->args);
	if (agg_has_incr(call, ad->func))
		w = dt_cg_expr(cx, nth_arg(call->args,
					   nargs_of(call->args) - 1));
	if (keys == NULL)
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)cx->st->off_key, 0));
	else
		dt_cg_key(cx, keys, false, ad->keysize);

	emit_lookup(cx, ad);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, have);
	/* first use of the key on this CPU: create the entry */
	emit_initial(cx, ad, drop);
	dt_as_load_map(cx->as, DT_R1, ad->map);
	dt_cg_mst_ptr(cx, DT_R2, cx->st->off_key);
	EMIT(DT_MOV64_IMM(DT_R4, BPF_NOEXIST));
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_update_elem));
	emit_lookup(cx, ad);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, have);
	dt_as_place(cx->as, drop);
	dt_cg_count_drop(cx, offsetof(dt_cpuinfo_t, agg_drops));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, have);
	emit_update(cx, ad, v, w);
	dt_as_place(cx->as, done);
	if (w >= 0)
		dt_regs_give(cx, w);
	if (v >= 0)
		dt_regs_give(cx, v);
}
