/* SPDX-License-Identifier: MIT */
/*
 * dt_check_agg.c: the checker of aggregations, @name[keys] = func(args).
 *
 * The first use of @name declares it (DT_IK_AGG in the session's table)
 * and fixes its function, parameters and key types; another use must
 * agree (D_AGG_REDEF, D_PROTO_LEN, D_PROTO_ARG).  The code generator
 * makes the aggregation's description (dt_progdesc.h: its key and value
 * layout, its map) from its first use (dt_cg_agg.c).
 */
#include <string.h>

#include "dt_check.h"
#include "dt_progdesc.h"

#define ERR(cx, tag, n, ...) dt_pcb_error((cx)->pcb, tag, (n)->line, __VA_ARGS__)

static const dt_aggfunc_t aggfuncs[] = {
	[DT_F_COUNT] = DT_AGG_COUNT, [DT_F_SUM] = DT_AGG_SUM,
	[DT_F_AVG] = DT_AGG_AVG, [DT_F_MIN] = DT_AGG_MIN,
	[DT_F_MAX] = DT_AGG_MAX, [DT_F_STDDEV] = DT_AGG_STDDEV,
	[DT_F_QUANTIZE] = DT_AGG_QUANTIZE,
	[DT_F_LQUANTIZE] = DT_AGG_LQUANTIZE,
	[DT_F_LLQUANTIZE] = DT_AGG_LLQUANTIZE,
};

/* Argument #i (from 1 after the value) of call: an integer constant, or
 * DTrace's error with tag. */
static int64_t const_arg(dt_check_t *cx, dt_node_t *call, int i,
			 dt_errtag_t tag)
{
	dt_node_t *a = dt_node_nth(call->args, i);
	if (!a->is_const || !dt_type_is_integer(a->type))
		ERR(cx, tag, a, "%s( ) argument #%d must be an integer "
		    "constant", call->name, i);
	return (int64_t)a->ival;
}

/* DTrace's checks on llquantize's parameters (its tags and messages); the
 * buckets they make must also fit a value (dt_cg_agg.c). */
static void llq_params(dt_check_t *cx, dt_node_t *call, int64_t *p)
{
	p[0] = const_arg(cx, call, 1, D_LLQUANT_FACTORTYPE);
	p[1] = const_arg(cx, call, 2, D_LLQUANT_LMAGTYPE);
	p[2] = const_arg(cx, call, 3, D_LLQUANT_HMAGTYPE);
	p[3] = const_arg(cx, call, 4, D_LLQUANT_STEPTYPE);
	if (p[0] < 2 || p[0] > UINT16_MAX)
		ERR(cx, D_LLQUANT_FACTORVAL, call, "llquantize( ) argument #1 "
		    "must be an unsigned 16-bit quantity greater than or equal "
		    "to 2");
	if (p[1] < 0 || p[1] > UINT16_MAX)
		ERR(cx, D_LLQUANT_LMAGVAL, call, "llquantize( ) argument #2 "
		    "must be an unsigned 16-bit quantity");
	if (p[2] < 0 || p[2] > UINT16_MAX)
		ERR(cx, D_LLQUANT_HMAGVAL, call, "llquantize( ) argument #3 "
		    "must be an unsigned 16-bit quantity");
	if (p[3] <= 0)
		ERR(cx, D_LLQUANT_STEPTYPE, call, "llquantize( ) argument #4 "
		    "must be a non-zero positive integer constant");
	if (p[3] > UINT16_MAX)
		ERR(cx, D_LLQUANT_STEPVAL, call, "llquantize( ) argument #4 "
		    "must be an unsigned 16-bit quantity");
	if (p[2] < p[1])
		ERR(cx, D_LLQUANT_HMAGVAL, call, "llquantize( ) argument #3 "
		    "(high magnitude) must be at least argument #2 (low "
		    "magnitude)");
	if (p[3] < p[0])
		ERR(cx, D_LLQUANT_STEPVAL, call, "llquantize( ) factor "
		    "(argument #1) "
		    "must be less than or equal to the number of linear steps "
		    "per magnitude (argument #4)");
	int64_t pw = 1;
	for (int64_t o = 0; o <= p[2]; o++) {
		if (pw > INT64_MAX / p[0])
			ERR(cx, D_LLQUANT_HMAGVAL, call, "llquantize( ) "
			    "argument #3 (high magnitude) will cause overflow "
			    "of 64 bits");
		pw *= p[0];
	}
	/* As DTrace: the first power of the factor that is at least nsteps
	 * is a multiple of it, so every order above nsteps divides evenly
	 * (below it, buckets are 1 wide); both are under 2^32. */
	int64_t first = p[0];
	while (first < p[3])
		first *= p[0];
	if (p[3] % p[0] != 0 || first % p[3] != 0)
		ERR(cx, D_LLQUANT_STEPVAL, call, "llquantize( ) factor (argument #1) "
		    "must evenly divide the number of steps per magnitude "
		    "(argument #4), and the number of steps per magnitude must "
		    "evenly divide a power of the factor");
}

/* DTrace's checks on lquantize's parameters (its tags and messages). */
static void lquantize_check(dt_check_t *cx, dt_node_t *call, int64_t lo,
			    int64_t hi, int64_t step)
{
	if (lo < INT32_MIN || lo > INT32_MAX)
		ERR(cx, D_LQUANT_BASEVAL, call, "lquantize( ) argument #1 "
		    "must be a 32-bit quantity");
	if (hi < INT32_MIN || hi > INT32_MAX)
		ERR(cx, D_LQUANT_LIMVAL, call, "lquantize( ) argument #2 "
		    "must be a 32-bit quantity");
	if (hi < lo)
		ERR(cx, D_LQUANT_MISMATCH, call, "lquantize( ) base (argument "
		    "#1) must be less than limit (argument #2)");
	if (step <= 0)
		ERR(cx, D_LQUANT_STEPTYPE, call, "lquantize( ) argument #3 "
		    "must be a non-zero positive integer constant");
	if (step > UINT16_MAX)
		ERR(cx, D_LQUANT_STEPVAL, call, "lquantize( ) argument #3 "
		    "must be a 16-bit quantity");
	if ((hi - lo) / step == 0)
		ERR(cx, D_LQUANT_STEPLARGE, call, "lquantize( ) step (argument "
		    "#3) too large: must have at least one quantization level");
	if ((hi - lo) / step > UINT16_MAX)
		ERR(cx, D_LQUANT_STEPSMALL, call, "lquantize( ) step (argument "
		    "#3) too small: number of quantization levels must be a "
		    "16-bit quantity");
	if ((hi - lo) / step > DT_LQUANTIZE_MAXLEVELS)
		ERR(cx, D_AGG_ARGS, call, "lquantize( ) has too many levels "
		    "(%lld, at most %d here)", (long long)((hi - lo) / step),
		    DT_LQUANTIZE_MAXLEVELS);
}

/* The parameters of f (lquantize, llquantize) in call, checked. */
static void agg_params(dt_check_t *cx, dt_node_t *call, dt_aggfunc_t f,
		       int64_t params[4])
{
	memset(params, 0, sizeof(int64_t) * 4);
	if (f == DT_AGG_LQUANTIZE) {
		int64_t lo = const_arg(cx, call, 1, D_LQUANT_BASETYPE);
		int64_t hi = const_arg(cx, call, 2, D_LQUANT_LIMTYPE);
		int64_t step = dt_node_count(call->args) > 3 ?
			       const_arg(cx, call, 3, D_LQUANT_STEPTYPE) : 1;
		lquantize_check(cx, call, lo, hi, step);
		/* as DTrace: the limit is the last whole step */
		params[0] = lo;
		params[1] = lo + (hi - lo) / step * step;
		params[2] = step;
	} else if (f == DT_AGG_LLQUANTIZE) {
		llq_params(cx, call, params);
	}
}

/* How key k is stored, as far as uses must agree: an integer, a string,
 * a stack of so many frames (stack(n), default -x stackframes, ustack(n),
 * default -x ustackframes) or a user address. */
static dt_keyshape_t key_shape(dt_check_t *cx, const dt_node_t *k)
{
	dt_keyshape_t ks = { DT_RK_INT, 0 };

	if (dt_check_usym_call(k) >= 0) {
		ks.kind = DT_RK_UADDR;
	} else if (dt_check_is_stack_call(k)) {
		bool user = strcmp(k->name, "ustack") == 0;
		ks.kind = user ? DT_RK_USTACK : DT_RK_KSTACK;
		ks.frames = dt_stack_frames(cx->dtp, k);
	} else if (dt_check_is_string(k->type)) {
		ks.kind = DT_RK_STRING;
	} else if (dt_sou_type(k->type)) {
		ks.kind = DT_RK_MEM;
	}
	return ks;
}

/* The first use of @name: its identifier, with what every use must
 * match. */
static dt_ident_t *agg_declare(dt_check_t *cx, dt_node_t *agg,
			       dt_node_t *call, dt_aggfunc_t f,
			       dt_node_t *keys)
{
	int64_t params[4];
	int i = 0;

	agg_params(cx, call, f, params);	/* may fail: before allocating */
	dt_ident_t *id = dt_zalloc(sizeof(*id));
	memcpy(id->params, params, sizeof(params));
	id->name = dt_strdup(agg->name);
	id->kind = DT_IK_AGG;
	id->id = -1;		/* the description's, once made */
	id->aggfunc = f;
	id->nkeys = dt_node_count(keys);
	id->line = agg->line;
	id->keys = dt_zalloc(sizeof(*id->keys) * (size_t)(id->nkeys + 1));
	id->kshapes = dt_zalloc(sizeof(*id->kshapes) * (size_t)(id->nkeys + 1));
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++) {
		id->kshapes[i] = key_shape(cx, k);
		id->keys[i] = dt_check_is_stack_call(k) ?
			      &dt_printf_stack_type : k->type;
	}
	dt_idtab_add(cx->idents, id);
	return id;
}

/* DTrace's tag and name for each parameter of lquantize() and
 * llquantize() that differs from the aggregation's first use. */
static const struct {
	dt_errtag_t tag;
	const char *what;
} lq_match[] = {
	{ D_LQUANT_MATCHBASE, "base" },
	{ D_LQUANT_MATCHLIM, "limit" },
	{ D_LQUANT_MATCHSTEP, "step" },
}, llq_match[] = {
	{ D_LLQUANT_MATCHFACTOR, "factor" },
	{ D_LLQUANT_MATCHLMAG, "low magnitude" },
	{ D_LLQUANT_MATCHHMAG, "high magnitude" },
	{ D_LLQUANT_MATCHSTEPS, "steps per magnitude" },
};

static void params_match(dt_check_t *cx, dt_node_t *call, dt_aggfunc_t f,
			 const int64_t *now, const int64_t *before)
{
	bool lq = f == DT_AGG_LQUANTIZE;
	int n = lq ? 3 : f == DT_AGG_LLQUANTIZE ? 4 : 0;

	for (int i = 0; i < n; i++)
		if (now[i] != before[i])
			ERR(cx, lq ? lq_match[i].tag : llq_match[i].tag, call,
			    "%s( ) %s (argument #%d) doesn't match previous "
			    "declaration: expected %lld, found %lld",
			    call->name, lq ? lq_match[i].what :
			    llq_match[i].what, i + 1, (long long)before[i],
			    (long long)now[i]);
}

static void agg_match(dt_check_t *cx, const dt_ident_t *ad, dt_node_t *agg,
		      dt_node_t *call, dt_aggfunc_t f, dt_node_t *keys)
{
	int64_t params[4];

	if ((dt_aggfunc_t)ad->aggfunc != f)
		ERR(cx, D_AGG_REDEF, call, "@%s: aggregation redefined",
		    agg->name);
	agg_params(cx, call, f, params);
	params_match(cx, call, f, params, ad->params);
	int i = 0;
	for (dt_node_t *k = keys; k != NULL; k = k->next, i++) {
		if (i >= ad->nkeys)
			break;
		dt_keyshape_t ks = key_shape(cx, k);
		if (ks.kind != ad->kshapes[i].kind ||
		    ks.frames != ad->kshapes[i].frames ||
		    (ks.kind == DT_RK_MEM &&
		     !dt_check_key_compatible(ad->keys[i], k->type)))
			break;
	}
	int nk = dt_node_count(keys);
	if (nk != ad->nkeys)
		ERR(cx, D_PROTO_LEN, agg, "@%s[ ] prototype mismatch: %d arg%s "
		    "passed, %d expected", agg->name, nk, nk == 1 ? "" : "s",
		    ad->nkeys);
	if (i != ad->nkeys)
		ERR(cx, D_PROTO_ARG, agg, "@%s[ ] key #%d is incompatible with "
		    "prototype", agg->name, i + 1);
}

void dt_check_agg_assign(dt_check_t *cx, dt_node_t *n)
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
	int na = dt_node_count(call->args);
	if (na < fi->minargs || na > fi->maxargs)
		ERR(cx, D_PROTO_LEN, call, "%s( ) prototype mismatch: %d "
		    "arguments passed", call->name, na);
	for (dt_node_t *a = call->args; a != NULL; a = a->next) {
		if (dt_type_is_scalar(dt_check_expr(cx, a)))
			continue;
		if (a == call->args)	/* the value: DTrace's own check */
			ERR(cx, D_AGG_SCALAR, call, "%s( ) argument #1 must be "
			    "of scalar type", call->name);
		ERR(cx, D_PROTO_ARG, a, "%s( ) argument has type %s, "
		    "not an integer", call->name, a->type->name);
	}
	for (dt_node_t *k = keys; k != NULL; k = k->next) {
		if (dt_check_is_stack_call(k)) {
			dt_check_stack_args(cx, k);
			continue;
		}
		dt_type_t *t = dt_check_expr(cx, k);
		if (!dt_check_key_type(t))
			ERR(cx, D_KEY_TYPE, k, "@%s: a key must be an integer, "
			    "a string, a struct or a union, not %s", agg->name,
			    t->name);
	}
	dt_aggfunc_t f = aggfuncs[fi->func];
	dt_ident_t *id = dt_idtab_lookup(cx->idents, DT_IK_AGG, agg->name);
	bool by_consumer = dt_check_has_udepth(keys) ||
			   dt_check_has_udepth(call->args);
	for (dt_node_t *k = keys; k != NULL; k = k->next)
		if (k->kind == DT_N_CALL && strcmp(k->name, "ustack") == 0)
			by_consumer = true;
	if (by_consumer) {
		/* aggregated by the consumer from a record */
		cx->records = true;
		if (cx->depth_if > 0)
			cx->actmask = true;
	}
	if (id == NULL)
		id = agg_declare(cx, agg, call, f, keys);
	else
		agg_match(cx, id, agg, call, f, keys);
	agg->ident = id;
	n->ident = id;
}
