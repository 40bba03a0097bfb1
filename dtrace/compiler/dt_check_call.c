/* SPDX-License-Identifier: MIT */
/*
 * dt_check_call.c: the checker of calls: subroutines, which are
 * expressions with a type (strlen(), copyin(), alloca()...), and actions,
 * which are statements of their own (trace(), printf(), stack(),
 * speculate(), exit()...).
 *
 * A call's function is looked up in the function table (dt_func_lookup());
 * its arguments are counted against the prototype and checked by type
 * (DTrace's D_PROTO_LEN and D_PROTO_ARG messages).  An action also sets
 * what the clause's record holds (records, actmask), whether the clause
 * is destructive, and the order speculations allow (speculate() first,
 * nothing recorded after commit()).  Aggregating calls are checked in
 * dt_check_agg.c, the rest of the checker in dt_check.c.
 */
#include <string.h>

#include "dt_check_impl.h"
#include "dt_progdesc.h"

/* ---- function calls ---- */

/* DTrace's tags for the actions on aggregations, one set per action:
 * too few or many arguments, an argument that is no aggregation, an
 * aggregation not defined, a value (argument #2) that is no scalar. */
typedef struct aggact_tags {
	dt_func_t func;
	dt_errtag_t proto, aggarg, aggbad, scalar;
} aggact_tags_t;

static const aggact_tags_t aggact_tags[] = {
	{ DT_F_PRINTA, D_PRINTA_PROTO, D_PRINTA_AGGARG, D_PRINTA_AGGBAD,
	  D_UNKNOWN },
	{ DT_F_CLEAR, D_PROTO_LEN, D_CLEAR_AGGARG, D_CLEAR_AGGBAD,
	  D_UNKNOWN },
	{ DT_F_NORMALIZE, D_NORMALIZE_PROTO, D_NORMALIZE_AGGARG,
	  D_NORMALIZE_AGGBAD, D_NORMALIZE_SCALAR },
	{ DT_F_DENORMALIZE, D_NORMALIZE_PROTO, D_NORMALIZE_AGGARG,
	  D_NORMALIZE_AGGBAD, D_UNKNOWN },
	{ DT_F_TRUNC, D_TRUNC_PROTO, D_TRUNC_AGGARG, D_TRUNC_AGGBAD,
	  D_TRUNC_SCALAR },
};

static const aggact_tags_t *aggact_tags_of(dt_func_t func)
{
	for (size_t i = 0; i < sizeof(aggact_tags) / sizeof(*aggact_tags); i++)
		if (aggact_tags[i].func == func)
			return &aggact_tags[i];
	return NULL;
}

static void check_call_args(dt_check_t *cx, dt_node_t *n,
			    const dt_funcinfo_t *fi)
{
	int k = count_args(n->args);
	const aggact_tags_t *tags = aggact_tags_of(fi->func);
	dt_errtag_t tag = tags != NULL ? tags->proto : D_PROTO_LEN;

	if (fi->maxargs >= 0 && k > fi->maxargs && fi->maxargs != fi->minargs)
		ERR(cx, tag, n, "%s( ) prototype mismatch: %d "
		    "arguments passed, at most %d expected", fi->name, k,
		    fi->maxargs);
	if (k < fi->minargs || (fi->maxargs >= 0 && k > fi->maxargs))
		ERR(cx, tag, n, "%s( ) prototype mismatch: %d "
		    "arguments passed, %s%d expected", fi->name, k,
		    fi->maxargs != fi->minargs ? "at least " : "", fi->minargs);
}

/* void *, NULL among them: DTrace passes it where a prototype takes a
 * const char *, as C converts it. */
static bool is_void_ptr(const dt_type_t *t)
{
	return t->kind == DT_TK_PTR && t->base->kind == DT_TK_VOID;
}

static void need_arg(dt_check_t *cx, dt_node_t *call, dt_node_t *a, int i,
		     bool string, const char *what)
{
	dt_type_t *t = a->type;
	bool ok = string ? dt_check_is_string(t) || is_char_ptr(t) ||
			   is_void_ptr(t)
			 : dt_type_is_scalar(t);
	if (!ok)
		ERR(cx, D_PROTO_ARG, a, "%s( ) argument #%d is incompatible "
		    "with prototype:\n\tprototype: %s\n\t argument: %s",
		    call->name, i, what, t->name);
}

/* Argument #i of call, a pointer where the prototype (what) takes one:
 * a pointer to another type than target's (a struct name, NULL: any) or
 * void does not pass, as DTrace compares pointers; an integer (an
 * address) passes when addr_ok. */
static void need_ptr_arg(dt_check_t *cx, dt_node_t *call, dt_node_t *a,
			 int i, const char *what, const char *target,
			 bool addr_ok)
{
	const dt_type_t *t = a->type;
	bool ok = addr_ok && dt_type_is_integer(t);

	if (t->kind == DT_TK_PTR || t->kind == DT_TK_ARRAY)
		ok = target == NULL || t->base->kind == DT_TK_VOID ||
		     strcmp(t->base->name, target) == 0;
	if (!ok)
		ERR(cx, D_PROTO_ARG, a, "%s( ) argument #%d is incompatible "
		    "with prototype:\n\tprototype: %s\n\t argument: %s",
		    call->name, i, what, t->name);
}

/* bcopy(): a constant size must be one that a scratch area holds; one
 * known only when the program runs is checked then.  (alloca()'s size
 * is checked when the program runs, as DTrace checks it.) */
static void check_scratch_size(dt_check_t *cx, dt_node_t *n, dt_node_t *size)
{
	if (!size->is_const)
		return;
	if (size->ival == 0 ||
	    size->ival > cx->strsize * 2)
		ERR(cx, D_PROTO_ARG, size, "%s( ) size must be a positive "
		    "constant of at most %u", n->name, cx->strsize * 2);
}

/* print() of a struct or union of size 0 (a forward declaration, an
 * empty body), or of a pointer to one, has nothing to show: DTrace
 * refuses it. */
static void check_print_size(dt_check_t *cx, dt_node_t *a)
{
	const dt_type_t *t = a->type->kind == DT_TK_PTR ? a->type->base
							 : a->type;

	if ((t->kind == DT_TK_STRUCT || t->kind == DT_TK_UNION) &&
	    t->size == 0)
		ERR(cx, D_PRINT_SIZE, a, "print( ) argument #1 reference has "
		    "type '%s' with size 0; cannot print( ) it.", t->name);
}

static dt_type_t *check_copyout(dt_check_t *cx, dt_node_t *n,
				const dt_funcinfo_t *fi);

static dt_type_t *check_subr(dt_check_t *cx, dt_node_t *n,
			     const dt_funcinfo_t *fi)
{
	dt_node_t *a = n->args;
	dt_typetab_t *T = tt(cx);

	for (dt_node_t *x = a; x != NULL; x = x->next)
		dt_check_expr(cx, x);
	switch (fi->func) {
	case DT_F_COPYIN:
		need_arg(cx, n, a, 1, false, "uintptr_t");
		need_arg(cx, n, a->next, 2, false, "size_t");
		if (!a->next->is_const || a->next->ival > cx->strsize * 2)
			ERR(cx, D_PROTO_ARG, a->next, "copyin( ) size must be "
			    "a constant of at most %u", cx->strsize * 2);
		return dt_type_ptr(T, dt_type_void(T));
	case DT_F_COPYINTO:
		need_arg(cx, n, a, 1, false, "uintptr_t");
		need_arg(cx, n, a->next, 2, false, "size_t");
		need_ptr_arg(cx, n, a->next->next, 3, "void *", NULL, false);
		if (!a->next->is_const || a->next->ival == 0 ||
		    a->next->ival > cx->strsize * 2)
			ERR(cx, D_PROTO_ARG, a->next, "copyinto( ) size must be "
			    "a constant of at most %u", cx->strsize * 2);
		return dt_type_void(T);
	case DT_F_COPYINSTR:
		need_arg(cx, n, a, 1, false, "uintptr_t");
		if (a->next)
			need_arg(cx, n, a->next, 2, false, "size_t");
		return dt_type_string(T);
	case DT_F_STRINGOF:
		return dt_type_string(T);
	case DT_F_STRLEN:
		need_arg(cx, n, a, 1, true, "const char *");
		return dt_type_int(T, 8, false);
	case DT_F_STRJOIN:
		need_arg(cx, n, a, 1, true, "const char *");
		need_arg(cx, n, a->next, 2, true, "const char *");
		return dt_type_string(T);
	case DT_F_RAND:
		return dt_check_int_type(cx);
	case DT_F_STRCHR: case DT_F_STRRCHR:
		need_arg(cx, n, a, 1, true, "const char *");
		need_arg(cx, n, a->next, 2, false, "char");
		return dt_type_string(T);
	case DT_F_STRTOK:	/* NULL: go on with the previous string */
		if (!is_null(a))
			need_arg(cx, n, a, 1, true, "const char *");
		need_arg(cx, n, a->next, 2, true, "const char *");
		return dt_type_string(T);
	case DT_F_STRSTR:
		need_arg(cx, n, a, 1, true, "const char *");
		need_arg(cx, n, a->next, 2, true, "const char *");
		return dt_type_string(T);
	case DT_F_INDEX: case DT_F_RINDEX:
		need_arg(cx, n, a, 1, true, "const char *");
		need_arg(cx, n, a->next, 2, true, "const char *");
		if (a->next->next)
			need_arg(cx, n, a->next->next, 3, false, "int");
		return dt_check_int_type(cx);
	case DT_F_SUBSTR:
		need_arg(cx, n, a, 1, true, "const char *");
		need_arg(cx, n, a->next, 2, false, "int");
		if (a->next->next)
			need_arg(cx, n, a->next->next, 3, false, "int");
		return dt_type_string(T);
	case DT_F_TOUPPER: case DT_F_TOLOWER: case DT_F_BASENAME:
	case DT_F_DIRNAME: case DT_F_CLEANPATH:
		need_arg(cx, n, a, 1, true, "const char *");
		return dt_type_string(T);
	case DT_F_LLTOSTR:
		need_arg(cx, n, a, 1, false, "int64_t");
		if (a->next)
			need_arg(cx, n, a->next, 2, false, "int");
		return dt_type_string(T);
	case DT_F_HTONS: case DT_F_NTOHS:
		need_arg(cx, n, a, 1, false, "uint16_t");
		return dt_type_int(T, 2, false);
	case DT_F_HTONL: case DT_F_NTOHL:
		need_arg(cx, n, a, 1, false, "uint32_t");
		return dt_type_int(T, 4, false);
	case DT_F_HTONLL: case DT_F_NTOHLL:
		need_arg(cx, n, a, 1, false, "uint64_t");
		return dt_type_int(T, 8, false);
	case DT_F_INET_NTOA:
		need_arg(cx, n, a, 1, false, "ipaddr_t *");
		return dt_type_string(T);
	case DT_F_INET_NTOP:
		need_arg(cx, n, a, 1, false, "int");
		need_arg(cx, n, a->next, 2, false, "void *");
		if (a->is_const && a->ival != 2 && a->ival != 10)
			ERR(cx, D_PROTO_ARG, a, "inet_ntop( ) supports AF_INET "
			    "(2) and AF_INET6 (10) only");
		return dt_type_string(T);
	case DT_F_INET_NTOA6:
		need_ptr_arg(cx, n, a, 1, "in6_addr_t *", "struct in6_addr",
			     true);
		return dt_type_string(T);
	case DT_F_LINK_NTOP:
		need_arg(cx, n, a, 1, false, "int");
		need_arg(cx, n, a->next, 2, false, "void *");
		return dt_type_string(T);
	case DT_F_PROGENYOF:
		need_arg(cx, n, a, 1, false, "pid_t");
		return dt_check_int_type(cx);
	case DT_F_EXECARGS:
		need_arg(cx, n, a, 1, false, "struct task_struct *");
		return dt_type_string(T);
	case DT_F_D_PATH:
		need_ptr_arg(cx, n, a, 1, "struct path *", "struct path",
			     false);
		return dt_type_string(T);
	case DT_F_SPECULATION:
		return dt_check_int_type(cx);
	case DT_F_ALLOCA:
		need_arg(cx, n, a, 1, false, "size_t");
		return dt_type_ptr(T, dt_type_void(T));
	case DT_F_BCOPY:
		if (!dt_check_is_string(a->type))	/* DTrace takes one */
			need_arg(cx, n, a, 1, false, "void *");
		need_arg(cx, n, a->next, 2, false, "void *");
		need_arg(cx, n, a->next->next, 3, false, "size_t");
		check_scratch_size(cx, n, a->next->next);
		return dt_type_void(T);
	case DT_F_COPYOUT: case DT_F_COPYOUTSTR:
		return check_copyout(cx, n, fi);
	default:
		ERR(cx, D_FUNC_UNDEF, n, "%s( ) is not supported yet", fi->name);
	}
}

/* copyout(buf, addr, n) and copyoutstr(s, addr, n), DTrace's destructive
 * subroutines: their prototypes checked; without -w (destructive) the
 * program compiles and its enabling is refused, as in DTrace; with it the
 * call is refused, since the kernel keeps BPF programs from writing user
 * memory (bpf_probe_write_user()) under lockdown, as on the kernels this
 * dtrace targets. */
static dt_type_t *check_copyout(dt_check_t *cx, dt_node_t *n,
				const dt_funcinfo_t *fi)
{
	dt_node_t *a = n->args;

	if (fi->func == DT_F_COPYOUT)
		need_ptr_arg(cx, n, a, 1, "void *", NULL,
			     a->is_const && a->ival == 0);	/* NULL */
	else
		need_arg(cx, n, a, 1, true, "char *");
	need_arg(cx, n, a->next, 2, false, "uintptr_t");
	need_arg(cx, n, a->next->next, 3, false, "size_t");
	if (cx->dtp->opt.destructive)
		ERR(cx, D_UNKNOWN, n, "%s( ) is not supported: BPF programs "
		    "may not write user memory (bpf_probe_write_user() is "
		    "refused under kernel lockdown)", fi->name);
	cx->destructive = true;
	return dt_type_void(tt(cx));
}

/* A function DTrace knows but does not implement (chill(), panic(),
 * breakpoint(), jstack()): its prototype checked, then DTrace's refusal. */
static _Noreturn void refuse_unimplemented(dt_check_t *cx, dt_node_t *n,
					   const dt_funcinfo_t *fi)
{
	check_call_args(cx, n, fi);
	for (dt_node_t *a = n->args; a != NULL; a = a->next)
		dt_check_expr(cx, a);
	if (fi->func == DT_F_CHILL)
		need_arg(cx, n, n->args, 1, false, "int");
	if (fi->func == DT_F_JSTACK)
		dt_check_stack_args(cx, n);
	ERR(cx, D_UNKNOWN, n, "%s() is not implemented (yet)", fi->name);
}

/* An action or aggregating function used as a value: its prototype is
 * checked, its value is void (what the expression around it makes of a
 * void is its error, as in DTrace); the call itself is refused by
 * dt_check_action_values() once the clause passed its checks. */
static dt_type_t *action_value(dt_check_t *cx, dt_node_t *n,
			       const dt_funcinfo_t *fi)
{
	bool int_args = fi->func == DT_F_EXIT || fi->func == DT_F_RAISE ||
			fi->func == DT_F_SPECULATE || fi->func == DT_F_COMMIT ||
			fi->func == DT_F_DISCARD;
	int k = 1;

	check_call_args(cx, n, fi);
	for (dt_node_t *a = n->args; a != NULL; a = a->next, k++) {
		if (a->kind != DT_N_AGG)
			dt_check_expr(cx, a);
		if (int_args)
			need_arg(cx, n, a, k, false, "int");
	}
	if (cx->action_value == NULL)
		cx->action_value = n;
	/* DTrace's stack() and the user address actions have types of
	 * their own, which no operator takes but a variable does: then
	 * D_CG_EXPR, not void's error */
	if (fi->func == DT_F_STACK || fi->func == DT_F_USTACK)
		return n->type = dt_type_stack(tt(cx), false);
	if (dt_check_usym_call(n) >= 0)
		return n->type = dt_type_stack(tt(cx), true);
	return n->type = dt_type_void(tt(cx));
}

void dt_check_action_values(dt_check_t *cx)
{
	dt_node_t *n = cx->action_value;

	if (n == NULL)
		return;
	const dt_funcinfo_t *fi = dt_func_lookup(n->name);
	ERR(cx, D_CG_EXPR, n, "%s %s( ) may not be called from a D "
	    "expression (D program context required)",
	    fi->fclass == DT_FC_ACTION ? "tracing function" :
	    "aggregating function", n->name);
}

dt_type_t *check_call(dt_check_t *cx, dt_node_t *n)
{
	const dt_funcinfo_t *fi = dt_func_lookup(n->name);

	if (fi == NULL)
		ERR(cx, D_FUNC_UNDEF, n, "failed to resolve %s: Unknown "
		    "function name", n->name);
	if (!fi->implemented)
		refuse_unimplemented(cx, n, fi);
	if (fi->fclass == DT_FC_ACTION || fi->fclass == DT_FC_AGGFUNC)
		return action_value(cx, n, fi);
	/* DTrace compiles it and refuses the enabling without -w */
	if (fi->destructive)
		cx->destructive = true;
	check_call_args(cx, n, fi);
	n->type = check_subr(cx, n, fi);
	return n->type;
}

/* ---- actions ---- */

/* Argument #argn of n, an action on an aggregation: the aggregation's id. */
static int agg_id_of(dt_check_t *cx, dt_node_t *n, dt_node_t *a, int argn,
		     const aggact_tags_t *tags)
{
	if (a->kind != DT_N_AGG) {
		dt_check_expr(cx, a);
		ERR(cx, tags->aggarg, a, "%s( ) argument #%d is incompatible "
		    "with prototype:\n\tprototype: aggregation\n\t argument: "
		    "%s", n->name, argn, a->type->name);
	}
	dt_ident_t *id = lookup_var(cx, DT_IK_AGG, a->name);
	if (id == NULL)
		ERR(cx, tags->aggbad, a, "undefined aggregation: @%s",
		    a->name);
	a->ident = id;
	return id->id;
}

/* Make a (a char[N], that only %s and %S accept) stringof(a) in place:
 * the string is what gets recorded, at most N characters. */
static void wrap_stringof(dt_check_t *cx, dt_node_t *a)
{
	dt_node_t *arr = dt_pcb_alloc(cx->pcb, sizeof(*arr));
	dt_node_t *arr_next = a->next;

	*arr = *a;
	arr->next = NULL;
	memset(a, 0, sizeof(*a));
	a->kind = DT_N_UNARY;
	a->op = DT_OP_STRINGOF;
	a->line = arr->line;
	a->l = arr;
	a->next = arr_next;
	a->type = dt_type_string(tt(cx));
}

static void check_printf_args(dt_check_t *cx, dt_node_t *n, dt_node_t *fmt)
{
	dt_type_t *types[64];
	int k = 0;
	char msg[256] = "";

	if (fmt->kind != DT_N_STRING)
		ERR(cx, D_PRINTF_ARG_FMT, n, "%s( ) argument #1 is "
		    "incompatible with prototype:\n\tprototype: string "
		    "constant\n\t argument: %s", n->name,
		    dt_check_expr(cx, fmt)->name);
	for (dt_node_t *a = fmt->next; a != NULL; a = a->next) {
		dt_check_expr(cx, a);
		if (k >= 64)
			ERR(cx, D_PROTO_LEN, a, "too many arguments");
		if (!dt_type_is_scalar(a->type) && !dt_type_is_float(a->type) &&
		    !dt_check_is_string(a->type) && !is_char_ptr(a->type) &&
		    !dt_type_is_action_value(a->type))
			ERR(cx, D_PRINTF_ARG_TYPE, a, "%s( ) argument #%d has "
			    "type %s, which cannot be printed", n->name, k + 2,
			    a->type->name);
		types[k++] = a->type;
	}
	/* freopen(""): back to the original output */
	if (fmt->str[0] == '\0' && k == 0 && strcmp(n->name, "freopen") == 0)
		return;
	int tag = dt_printf_check(fmt->str, k, types, msg, sizeof(msg));
	if (tag == D_SYNTAX)	/* the format itself: DTrace names no call */
		ERR(cx, D_SYNTAX, n, "%s", msg);
	if (tag != 0)
		ERR(cx, (dt_errtag_t)tag, n, "%s( ) %s", n->name, msg);
	for (dt_node_t *a = fmt->next; a != NULL; a = a->next)
		if (a->type->kind == DT_TK_ARRAY && is_char_ptr(a->type))
			wrap_stringof(cx, a);
}

/* printa(fmt, @a...): the conversions that are not %@ take the keys of
 * the (first) aggregation, in order, and must fit their types; fewer
 * conversions than keys is fine.  An aggregation first assigned in a later
 * clause is checked at run time instead. */
static void check_printa_format(dt_check_t *cx, dt_node_t *n)
{
	dt_node_t *fmt = n->args;
	char msg[256] = "";

	if (fmt->kind != DT_N_STRING)
		return;
	const dt_ident_t *ad = fmt->next->ident;
	int tag = dt_printf_check(fmt->str, ad->nkeys, ad->keys, msg,
				  sizeof(msg));
	if (tag == D_SYNTAX)
		ERR(cx, D_SYNTAX, n, "%s", msg);
	if (tag != 0 && tag != D_PRINTF_ARG_EXTRA)
		ERR(cx, (dt_errtag_t)tag, n, "printa( ) %s", msg);
}

/* ufunc(), usym(), umod() and uaddr(): which one, or -1. */
int dt_check_usym_call(const dt_node_t *n)
{
	static const char *const names[] = {
		[DT_USYM_FUNC] = "ufunc", [DT_USYM_SYM] = "usym",
		[DT_USYM_MOD] = "umod", [DT_USYM_ADDR] = "uaddr",
	};

	if (n->kind != DT_N_CALL)
		return -1;
	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(n->name, names[i]) == 0)
			return i;
	return -1;
}

bool dt_check_is_stack_call(const dt_node_t *n)
{
	return n->kind == DT_N_CALL && (strcmp(n->name, "ustack") == 0 ||
					strcmp(n->name, "stack") == 0 ||
					dt_check_usym_call(n) >= 0);
}

uint32_t dt_stack_frames(const dtrace_hdl_t *dtp, const dt_node_t *call)
{
	uint64_t n = call->args != NULL ? (uint64_t)call->args->ival :
		     strcmp(call->name, "ustack") == 0 ?
		     dtp->opt.ustackframes : dtp->opt.stackframes;

	return (uint32_t)(n > dtp->opt.maxframes ? dtp->opt.maxframes : n);
}

bool dt_check_is_udepth(const dt_node_t *n)
{
	dt_bvar_t bv;
	int argn;

	return n->kind == DT_N_IDENT && dt_bvar_lookup(n->name, &bv, &argn) &&
	       bv == DT_BV_USTACKDEPTH;
}

bool dt_check_has_udepth(const dt_node_t *list)
{
	for (; list != NULL; list = list->next)
		if (dt_check_is_udepth(list))
			return true;
	return false;
}

/* stack([frames]) and ustack([frames[, strsize]]): positive integer
 * constants; the frames must fit a record (a key is checked by its size
 * in dt_cg_agg.c). */
#define DT_STACK_FRAMES_MAX	1024
void dt_check_stack_args(dt_check_t *cx, dt_node_t *n)
{
	int k = 1;

	if (dt_check_usym_call(n) >= 0) {	/* ufunc(addr) and the like */
		if (n->args == NULL || n->args->next != NULL)
			ERR(cx, D_PROTO_LEN, n, "%s( ) prototype mismatch: "
			    "1 argument required", n->name);
		dt_check_expr(cx, n->args);
		need_arg(cx, n, n->args, 1, false, "uint64_t");
		return;
	}

	for (dt_node_t *x = n->args; x != NULL; x = x->next, k++) {
		/* DTrace's tags: stack()'s and ustack()'s frames, ustack()'s
		 * strsize */
		dt_errtag_t tag = k == 2 ? D_USTACK_STRSIZE :
				  strcmp(n->name, "stack") == 0 ? D_STACK_SIZE :
				  D_USTACK_FRAMES;

		dt_check_expr(cx, x);
		if (k == 2 && (!dt_type_is_integer(x->type) ||
			       !x->is_const || (int64_t)x->ival < 0))
			ERR(cx, tag, x, "ustack( ) argument #2 must be a "
			    "positive integer constant");
		if (k == 1 && (!dt_type_is_integer(x->type) ||
			       !x->is_const || (int64_t)x->ival <= 0 ||
			       x->ival > DT_STACK_FRAMES_MAX))
			ERR(cx, tag, x, "%s( ) argument #1 must be a non-zero "
			    "positive integer constant of at most 1024",
			    n->name);
	}
}

/* tracemem() and printm(): the bytes recorded, a positive constant that
 * a record holds. */
static void check_mem_size(dt_check_t *cx, dt_node_t *n, dt_node_t *size,
			   dt_errtag_t tag)
{
	if (!size->is_const || size->ival == 0 ||
	    size->ival > cx->rec_max / 2)
		ERR(cx, tag, size, "%s( ) size must be a positive "
		    "constant of at most %u", n->name, cx->rec_max / 2);
}

/*
 * DTrace's order of speculative actions in a clause: speculate() first
 * and once, then data recording only (no aggregation, destructive action
 * or exit()); commit() once, before any data recording and without
 * aggregations.  discard() goes anywhere.
 */
/* "name( ) may not follow what" when cond holds. */
static void refuse_after(dt_check_t *cx, dt_node_t *n, bool cond,
			 dt_errtag_t tag, const char *what)
{
	if (cond)
		ERR(cx, tag, n, "%s( ) may not follow %s", n->name, what);
}

static void check_spec_order(dt_check_t *cx, dt_node_t *n,
			     const dt_funcinfo_t *fi)
{
	switch (fi->func) {
	case DT_F_DISCARD:
		return;
	case DT_F_COMMIT:
		refuse_after(cx, n, cx->commits, D_COMM_COMM, "commit( )");
		refuse_after(cx, n, cx->drecs, D_COMM_DREC,
			     "data-recording action(s)");
		cx->commits = true;
		return;
	case DT_F_SPECULATE:
		refuse_after(cx, n, cx->speculates, D_SPEC_SPEC,
			     "speculate( )");
		refuse_after(cx, n, cx->commits, D_SPEC_COMM, "commit( )");
		refuse_after(cx, n, cx->drecs, D_SPEC_DREC,
			     "data-recording action(s)");
		cx->speculates = true;
		return;
	default:
		break;
	}
	if (cx->speculates && fi->destructive)
		ERR(cx, D_ACT_SPEC, n, "destructive actions may not follow "
		    "speculate( )");
	if (cx->speculates && fi->func == DT_F_EXIT)
		ERR(cx, D_EXIT_SPEC, n, "exit( ) may not follow speculate( )");
	if (fi->destructive)
		return;
	if (cx->commits)
		ERR(cx, D_DREC_COMM, n, "data-recording actions may not "
		    "follow commit( )");
	if (!cx->speculates)
		cx->drecs = true;
}

void check_action(dt_check_t *cx, dt_node_t *n, const dt_funcinfo_t *fi)
{
	dt_node_t *a = n->args;

	check_call_args(cx, n, fi);
	check_spec_order(cx, n, fi);
	if (cx->depth_if > 0)
		cx->actmask = true;	/* conditional: record which ran */
	if (fi->func == DT_F_EXIT && cx->nexits++ > 0)
		cx->actmask = true;	/* a second exit() is dropped */
	switch (fi->func) {
	case DT_F_PRINTF:
	case DT_F_SYSTEM:
	case DT_F_FREOPEN:
		check_printf_args(cx, n, a);
		break;
	case DT_F_PRINTM:
		dt_check_expr(cx, a);
		dt_check_expr(cx, a->next);
		need_arg(cx, n, a, 1, false, "size_t");
		need_arg(cx, n, a->next, 2, false, "void *");
		check_mem_size(cx, n, a, D_PROTO_ARG);
		break;
	case DT_F_PRINTA: {
		dt_node_t *x = a;
		cx->records = true;
		if (x->kind == DT_N_STRING)
			x = x->next;
		if (x == NULL)
			ERR(cx, D_PRINTA_PROTO, n, "printa( ) prototype "
			    "mismatch: 1 args passed, 2 expected");
		for (int k = x == a ? 1 : 2; x != NULL; x = x->next, k++)
			agg_id_of(cx, n, x, k, aggact_tags_of(DT_F_PRINTA));
		check_printa_format(cx, n);
		return;
	}
	case DT_F_CLEAR: case DT_F_TRUNC: case DT_F_NORMALIZE:
	case DT_F_DENORMALIZE:
		agg_id_of(cx, n, a, 1, aggact_tags_of(fi->func));
		for (dt_node_t *x = a->next; x != NULL; x = x->next)
			if (!dt_type_is_scalar(dt_check_expr(cx, x)))
				ERR(cx, aggact_tags_of(fi->func)->scalar, x,
				    "%s( ) argument #2 must be of scalar type",
				    fi->name);
		break;
	case DT_F_SETOPT:
		for (dt_node_t *x = a; x != NULL; x = x->next) {
			if (x->kind != DT_N_STRING)
				ERR(cx, D_PROTO_ARG, x, "setopt( ) arguments "
				    "must be string literals");
			dt_check_expr(cx, x);
		}
		break;
	case DT_F_TRACE:
	case DT_F_PRINT:
		dt_check_expr(cx, a);
		if (dt_type_is_action_value(a->type))
			break;	/* D_CG_EXPR, dt_check_action_values() */
		if (a->type->kind == DT_TK_VOID && fi->func == DT_F_TRACE)
			ERR(cx, D_TRACE_VOID, a, "trace( ) may not be applied "
			    "to a void expression");
		if (a->type->kind == DT_TK_VOID || a->type->kind == DT_TK_FUNC)
			ERR(cx, D_PROTO_ARG, a, "%s( ) argument has type "
			    "%s", fi->name, a->type->name);
		if (fi->func == DT_F_PRINT)
			check_print_size(cx, a);
		break;
	case DT_F_TRACEMEM:
		for (dt_node_t *x = a; x != NULL; x = x->next)
			dt_check_expr(cx, x);
		if (!dt_type_is_integer(a->type) && a->type->kind != DT_TK_PTR)
			ERR(cx, D_TRACEMEM_ADDR, a, "tracemem( ) argument #1 is "
			    "incompatible with prototype:\n\tprototype: pointer "
			    "or integer\n\t argument: %s", a->type->name);
		need_arg(cx, n, a->next, 2, false, "size_t");
		check_mem_size(cx, n, a->next, D_TRACEMEM_SIZE);
		if (a->next->next != NULL)
			need_arg(cx, n, a->next->next, 3, false, "size_t");
		break;
	case DT_F_STACK: case DT_F_USTACK:
	case DT_F_UFUNC: case DT_F_USYM: case DT_F_UMOD: case DT_F_UADDR:
		dt_check_stack_args(cx, n);
		break;
	default:
		for (dt_node_t *x = a; x != NULL; x = x->next) {
			dt_check_expr(cx, x);
			need_arg(cx, n, x, 1, false, "int");
		}
		break;
	}
	/* Everything the consumer executes travels in the record;
	 * speculate() alone records nothing, so that a clause of it alone
	 * leaves no probe line in the speculation, as in DTrace. */
	if (fi->func != DT_F_RAISE && fi->func != DT_F_STOP &&
	    fi->func != DT_F_SPECULATE)
		cx->records = true;
	if (fi->destructive)
		cx->destructive = true;
}
