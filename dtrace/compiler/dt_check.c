/* SPDX-License-Identifier: MIT */
/*
 * dt_check.c: the type checker of D clauses.
 *
 * One pass over a clause, before any code is emitted: every expression node
 * gets its type (n->type), identifiers their resolution (n->ident), and
 * constant subexpressions are folded (n->is_const, value in n->ival,
 * normalized to the node's type).  Variables are declared here by their
 * first assignment, in the session's table, with the type of the value;
 * the code generator gives them their storage afterwards.  The checker
 * works on its own context (dt_check.h) and never on the code generator's.
 *
 * Invariants after a successful check: the code generator meets no
 * unresolved identifier, no operator whose operands it cannot handle and no
 * unknown function; every error was reported through dt_pcb_error() with
 * its tag, never by the code generator, but for the limits of the layout
 * the code generator chooses (the bytes of keys, of values, of the machine
 * state, of a BPF program).
 *
 * This file checks expressions (but calls), statements and clauses; the
 * other parts of the checker, by what they check: calls of subroutines
 * and actions (dt_check_call.c), aggregations (dt_check_agg.c),
 * declarations (dt_check_decl.c), translators and xlate
 * (dt_check_xlate.c).  They share dt_check_impl.h.
 */
#include <string.h>

#include "dt_check_impl.h"
#include "dt_progdesc.h"
#include "dt_btf.h"

dt_type_t *dt_check_int_type(dt_check_t *cx)
{
	return dt_type_int(tt(cx), 4, true);
}

bool dt_check_is_string(const dt_type_t *t)
{
	return t->kind == DT_TK_STRING;
}

/* C's integer promotions. */
static dt_type_t *promote(dt_check_t *cx, dt_type_t *t)
{
	if (t->kind == DT_TK_ENUM || (t->kind == DT_TK_INT && t->size < 4))
		return dt_check_int_type(cx);
	return t;
}

/* C's usual arithmetic conversions on two integer types. */
static dt_type_t *arith_type(dt_check_t *cx, dt_type_t *a, dt_type_t *b)
{
	a = promote(cx, a);
	b = promote(cx, b);
	if (a->size == b->size && a->is_signed == b->is_signed)
		return a;
	if (a->is_signed == b->is_signed)
		return a->size > b->size ? a : b;
	dt_type_t *u = a->is_signed ? b : a, *s = a->is_signed ? a : b;
	if (u->size >= s->size)
		return u;
	return s;
}

/* Truncate v to type t and extend it back to 64 bits. */
static uint64_t normalize(const dt_type_t *t, uint64_t v)
{
	if (t->kind == DT_TK_PTR || t->size >= 8 || t->size == 0)
		return v;
	unsigned bits = (unsigned)t->size * 8;
	uint64_t m = (1ULL << bits) - 1;
	v &= m;
	if (t->is_signed && (v >> (bits - 1)) & 1)
		v |= ~m;
	return v;
}

static void set_const(dt_node_t *n, dt_type_t *t, uint64_t v)
{
	n->type = t;
	n->is_const = true;
	n->ival = normalize(t, v);
}

static void need_integer(dt_check_t *cx, dt_node_t *n, const char *op)
{
	if (!dt_type_is_integer(n->type))
		ERR(cx, D_OP_INT, n, "operator %s requires an operand of "
		    "integral type", op);
}

/* A binary operator's operands, as DTrace words it: "operands" */
static void need_integers(dt_check_t *cx, dt_node_t *n, const char *op)
{
	if (!dt_type_is_integer(n->l->type) || !dt_type_is_integer(n->r->type))
		ERR(cx, D_OP_INT, n, "operator %s requires operands of "
		    "integral type", op);
}

static const char *op_name(dt_op_t op)
{
	static const char *const names[] = {
		[DT_OP_NEG] = "-", [DT_OP_PLUS] = "+", [DT_OP_BITNOT] = "~",
		[DT_OP_LNOT] = "!", [DT_OP_DEREF] = "*", [DT_OP_ADDROF] = "&",
		[DT_OP_PREINC] = "++", [DT_OP_PREDEC] = "--",
		[DT_OP_POSTINC] = "++", [DT_OP_POSTDEC] = "--",
		[DT_OP_SIZEOF] = "sizeof", [DT_OP_STRINGOF] = "stringof",
		[DT_OP_ADD] = "+", [DT_OP_SUB] = "-", [DT_OP_MUL] = "*",
		[DT_OP_DIV] = "/", [DT_OP_MOD] = "%", [DT_OP_SHL] = "<<",
		[DT_OP_SHR] = ">>", [DT_OP_BAND] = "&", [DT_OP_BOR] = "|",
		[DT_OP_BXOR] = "^", [DT_OP_LAND] = "&&", [DT_OP_LOR] = "||",
		[DT_OP_LXOR] = "^^", [DT_OP_EQ] = "==", [DT_OP_NE] = "!=",
		[DT_OP_LT] = "<", [DT_OP_LE] = "<=", [DT_OP_GT] = ">",
		[DT_OP_GE] = ">=", [DT_OP_ASSIGN] = "=",
		[DT_OP_ADD_ASSIGN] = "+=", [DT_OP_SUB_ASSIGN] = "-=",
		[DT_OP_MUL_ASSIGN] = "*=", [DT_OP_DIV_ASSIGN] = "/=",
		[DT_OP_MOD_ASSIGN] = "%=", [DT_OP_SHL_ASSIGN] = "<<=",
		[DT_OP_SHR_ASSIGN] = ">>=", [DT_OP_AND_ASSIGN] = "&=",
		[DT_OP_OR_ASSIGN] = "|=", [DT_OP_XOR_ASSIGN] = "^=",
		[DT_OP_COMMA] = ",",
	};
	if ((size_t)op < sizeof(names) / sizeof(names[0]) && names[op])
		return names[op];
	return "?";
}

/* ---- identifiers ---- */

dt_ident_t *dt_check_declare_var(dt_check_t *cx, dt_identkind_t kind,
				 const char *name, dt_type_t *type, int nkeys,
				 dt_type_t **keys, int line)
{
	dt_ident_t *id = dt_zalloc(sizeof(*id));

	id->name = dt_strdup(name);
	id->kind = kind;
	id->type = type;
	id->nkeys = nkeys;
	id->line = line;
	id->declared = true;
	if (nkeys > 0) {
		id->keys = dt_zalloc(sizeof(*keys) * (size_t)nkeys);
		memcpy(id->keys, keys, sizeof(*keys) * (size_t)nkeys);
	}
	dt_idtab_add(cx->idents, id);
	return id;
}

static dt_type_t *check_bvar(dt_check_t *cx, dt_node_t *n, dt_bvar_t bv,
			     int argn)
{
	static dt_ident_t bvars[DT_BV_COUNT];	/* read-only use */
	dt_ident_t *id = &bvars[bv];
	dt_type_t *t;

	id->kind = DT_IK_BUILTIN;
	id->id = (int)bv;
	id->name = n->name;
	id->nkeys = -1;
	n->ident = id;
	switch (bv) {
	case DT_BV_ARG:
		n->ival = (uint64_t)argn;	/* the arg number */
		return dt_type_int(tt(cx), 8, true);
	case DT_BV_ARGS:
	case DT_BV_UREGS:
		if (n->lvalue)	/* set by check_index: it is indexed */
			return dt_type_int(tt(cx), 8, false);
		ERR(cx, D_IDENT_BADREF, n, "%s[ ] must be used with an index",
		    n->name);
	case DT_BV_PID: case DT_BV_PPID: case DT_BV_TID:
	case DT_BV_ERRNO:
		return dt_type_int(tt(cx), 4, true);
	case DT_BV_UID: case DT_BV_GID: case DT_BV_CPU: case DT_BV_ID:
	case DT_BV_EPID: case DT_BV_USTACKDEPTH: case DT_BV_STACKDEPTH:
		return dt_type_int(tt(cx), 4, false);
	case DT_BV_EXECNAME: case DT_BV_PROBEPROV: case DT_BV_PROBEMOD:
	case DT_BV_PROBEFUNC: case DT_BV_PROBENAME:
		return dt_type_string(tt(cx));
	case DT_BV_CURTHREAD:	/* the kernel's type, where BTF has it */
		if ((t = dt_btf_type(cx->dtp, "struct task_struct *")) != NULL)
			return t;
		return dt_type_int(tt(cx), 8, false);
	case DT_BV_TIMESTAMP: case DT_BV_VTIMESTAMP: case DT_BV_WALLTIMESTAMP:
	case DT_BV_UCALLER: case DT_BV_CALLER:
		return dt_type_int(tt(cx), 8, false);
	case DT_BV_KVAR: case DT_BV_COUNT:
		break;
	}
	return dt_check_int_type(cx);
}

/* Whether n names a kernel symbol: `name or vmlinux`name; *sym = name */
static bool is_ksym(const dt_node_t *n, const char **sym)
{
	const char *tick = strrchr(n->name, '`');

	if (tick == NULL)
		return false;
	*sym = tick + 1;
	return tick == n->name || (tick - n->name == 7 &&
				   strncmp(n->name, "vmlinux", 7) == 0);
}

/*
 * A kernel symbol, `name or vmlinux`name, as DTrace reads them.  A
 * per-CPU variable of the kernel's BTF is this CPU's instance, an lvalue
 * of its BTF type: the code generator finds it from the runqueue of this
 * CPU (the per-CPU variable runqueues, reached from the current task),
 * n->ival being the variable's distance from it in the per-CPU area.  A
 * symbol that kallsyms names but BTF does not type (the kernel's BTF
 * types its per-CPU variables only) is refused as DTrace refuses a
 * symbol without type information (D_SYM_NOTYPES); any other is unknown.
 */
static dt_type_t *check_ksym(dt_check_t *cx, dt_node_t *n)
{
	static dt_ident_t kvar = { .kind = DT_IK_BUILTIN, .id = DT_BV_KVAR,
				   .nkeys = -1, .name = "`" };
	const char *sym = NULL;
	dt_type_t *t;
	int64_t from_rq;

	if (!is_ksym(n, &sym))
		ERR(cx, D_IDENT_UNDEF, n, "failed to resolve %s: Unknown "
		    "symbol name", n->name);
	switch (dt_btf_kernel_symbol(cx->dtp, sym, &t, &from_rq)) {
	case DT_KSYM_PERCPU:
		n->ident = &kvar;
		n->ival = (uint64_t)from_rq;
		n->lvalue = true;
		return t;
	case DT_KSYM_UNTYPED:
		ERR(cx, D_SYM_NOTYPES, n, "no symbolic type information is "
		    "available for vmlinux`%s: No type information available "
		    "for symbol", sym);
	case DT_KSYM_UNKNOWN:
		break;
	}
	ERR(cx, D_IDENT_UNDEF, n, "failed to resolve %s: Unknown symbol "
	    "name", n->name);
}

static dt_type_t *check_ident(dt_check_t *cx, dt_node_t *n)
{
	dt_bvar_t bv;
	int argn;
	int64_t v;
	dt_type_t *et;

	if (dt_bvar_lookup(n->name, &bv, &argn))
		return check_bvar(cx, n, bv, argn);
	dt_ident_t *id = lookup_var(cx, DT_IK_GLOBAL, n->name);
	if (id != NULL) {
		if (id->nkeys >= 0)
			ERR(cx, D_IDENT_BADREF, n, "%s is an associative "
			    "array and must be used with a key", n->name);
		n->ident = id;
		return id->type;
	}
	id = lookup_var(cx, DT_IK_INLINE, n->name);
	if (id != NULL) {
		n->ident = id;
		if (id->kind == DT_IK_CONST) {
			set_const(n, id->type, (uint64_t)id->value);
			return id->type;
		}
		if (id->expr->kind == DT_N_XLATE)
			return dt_xlate_value(cx, n, id->expr);
		return id->type;
	}
	if (dt_type_enum_const(tt(cx), n->name, &v, &et)) {
		set_const(n, et, (uint64_t)v);
		return et;
	}
	if (dt_ureg_lookup(n->name, &v) || dt_const_lookup(n->name, &v)) {
		set_const(n, dt_check_int_type(cx), (uint64_t)v);
		return n->type;
	}
	if (strcmp(n->name, "NULL") == 0) {	/* DTrace's (void *)0 */
		set_const(n, dt_type_ptr(tt(cx), dt_type_void(tt(cx))), 0);
		return n->type;
	}
	if (strchr(n->name, '`') != NULL)
		return check_ksym(cx, n);
	ERR(cx, D_IDENT_UNDEF, n, "failed to resolve %s: Unknown variable "
	    "name", n->name);
}

/* The variable class and name of a self->x / this->x node, or false. */
static bool var_member(const dt_node_t *n, dt_identkind_t *kind)
{
	if (n->kind != DT_N_MEMBER || n->l == NULL || n->l->kind != DT_N_IDENT)
		return false;
	if (strcmp(n->l->name, "self") == 0)
		*kind = DT_IK_SELF;
	else if (strcmp(n->l->name, "this") == 0)
		*kind = DT_IK_THIS;
	else
		return false;
	return true;
}

/* Check tuple keys against an array's declared keys (or declare them). */
static void check_keys(dt_check_t *cx, dt_node_t *n, dt_ident_t *id,
		       dt_node_t *args)
{
	int k = 0;

	for (dt_node_t *a = args; a != NULL; a = a->next, k++) {
		dt_type_t *t = dt_check_expr(cx, a);
		if (!dt_check_key_type(t))
			ERR(cx, D_KEY_TYPE, a, "%s: key #%d is neither an "
			    "integer, a string, a struct nor a union",
			    id->name, k + 1);
		if (k < id->nkeys && !dt_check_key_compatible(id->keys[k], t))
			ERR(cx, D_PROTO_ARG, a, "%s[ ] key #%d is incompatible "
			    "with prototype:\n\tprototype: %s\n\t      key: "
			    "%s", id->name, k + 1, id->keys[k]->name,
			    t->name);
	}
	if (k != id->nkeys)
		ERR(cx, D_PROTO_LEN, n, "%s[ ] prototype mismatch: %d arg%s "
		    "passed, %d expected", id->name, k, k == 1 ? "" : "s",
		    id->nkeys);
}

static dt_type_t **key_types(dt_check_t *cx, dt_node_t *args, int *nkeys)
{
	int k = count_args(args), i = 0;
	dt_type_t **keys = dt_pcb_alloc(cx->pcb, sizeof(*keys) * (k + 1));

	for (dt_node_t *a = args; a != NULL; a = a->next)
		keys[i++] = dt_check_expr(cx, a);
	*nkeys = k;
	return keys;
}

/* The variable named by an lvalue node (IDENT, self->x, this->x, or one of
 * them indexed by keys).  With vt non-NULL, an unknown variable is declared
 * with that type; otherwise it is an error. */
static dt_ident_t *check_var_ref(dt_check_t *cx, dt_node_t *n, dt_type_t *vt)
{
	dt_node_t *v = n->kind == DT_N_INDEX ? n->l : n;
	dt_node_t *args = n->kind == DT_N_INDEX ? n->args : NULL;
	dt_identkind_t kind = DT_IK_GLOBAL;
	dt_bvar_t bv;
	int argn;

	if (v->kind == DT_N_IDENT) {
		if (dt_bvar_lookup(v->name, &bv, &argn))
			ERR(cx, D_OP_WRITE, n, "operator = may not be applied "
			    "to built-in variable %s", v->name);
		if (strchr(v->name, '`') != NULL)	/* the kernel's */
			ERR(cx, D_OP_WRITE, n, "operator = can only be "
			    "applied to a writable variable");
	} else if (!var_member(v, &kind)) {
		ERR(cx, D_OP_LVAL, n, "operator = requires a modifiable "
		    "lvalue as an operand");
	}
	if (kind == DT_IK_THIS && args != NULL)
		ERR(cx, D_IDENT_BADREF, n, "this->%s: clause-local variables "
		    "cannot be associative arrays", v->name);
	dt_ident_t *id = lookup_var(cx, kind, v->name);
	if (id == NULL) {
		if (vt == NULL)
			ERR(cx, D_IDENT_UNDEF, n, "failed to resolve %s%s: "
			    "Unknown variable name", kind == DT_IK_SELF ?
			    "self->" : kind == DT_IK_THIS ? "this->" : "",
			    v->name);
		int nkeys = -1;
		dt_type_t **keys = args ? key_types(cx, args, &nkeys) : NULL;
		id = dt_check_declare_var(cx, kind, v->name, vt, nkeys, keys,
				    n->line);
	} else if (id->implicit && vt != NULL) {
		/* first assignment of a variable read before: it keeps the
		 * integer type of that read, as in DTrace (scalar types only
		 * take its 8-byte slot) */
		if (args != NULL)
			ERR(cx, D_IDENT_BADREF, n, "scalar '%s' may not be "
			    "referenced as associative array", v->name);
		if (!dt_type_in_register(vt))
			ERR(cx, D_OP_INCOMPAT, n, "operands have incompatible "
			    "types: \"%s\" = \"%s\"", id->type->name,
			    vt->name);
		id->type = vt;
		id->implicit = false;
	} else if ((id->nkeys >= 0) != (args != NULL)) {
		ERR(cx, D_IDENT_BADREF, n, "%s %s used %s keys", v->name,
		    id->nkeys >= 0 ? "is an associative array and is" :
		    "is a scalar and is", args ? "with" : "without");
	}
	if (args != NULL)
		check_keys(cx, n, id, args);
	v->ident = id;
	n->ident = id;
	n->type = id->type;
	n->lvalue = true;
	return id;
}

/* Pointers that may be assigned to one another: to the same type, or one
 * of them to void. */
static bool ptr_compatible(const dt_type_t *to, const dt_type_t *from)
{
	const dt_type_t *a = to->base, *b = from->base;

	return a == b || a->kind == DT_TK_VOID || b->kind == DT_TK_VOID ||
	       (a->kind == b->kind && a->size == b->size &&
		strcmp(a->name, b->name) == 0);
}

bool dt_check_key_type(const dt_type_t *t)
{
	return dt_type_is_scalar(t) || dt_check_is_string(t) ||
	       (dt_sou_type(t) && t->size > 0);
}

/* Two struct, union or array types that are one: the same object, or the
 * same kind, size and name (a type read again from another file). */
static bool same_sou(const dt_type_t *a, const dt_type_t *b)
{
	return a == b || (a->kind == b->kind && a->size == b->size &&
			  strcmp(a->name, b->name) == 0);
}

bool dt_check_key_compatible(const dt_type_t *proto, const dt_type_t *t)
{
	if (dt_sou_type(proto) || dt_sou_type(t))
		return dt_sou_type(proto) && dt_sou_type(t) &&
		       same_sou(proto, t);
	return dt_check_is_string(proto) == dt_check_is_string(t);
}

bool dt_check_is_zero(const dt_node_t *n)
{
	return n->is_const && n->ival == 0 && dt_type_is_integer(n->type);
}

/* The value of from may be stored in an object of type to, by DTrace's
 * rules: integers into integers, strings (and char pointers) or NULL into
 * strings, compatible pointers or NULL into pointers, else the same type. */
bool dt_check_assignable(const dt_type_t *to, const dt_node_t *from)
{
	const dt_type_t *ft = from->type;

	if (dt_check_is_string(to))
		return dt_check_is_string(ft) || is_char_ptr(ft) ||
		       (ft->kind == DT_TK_PTR && is_null(from));
	if (dt_type_is_integer(to))
		return dt_type_is_integer(ft);
	if (to->kind == DT_TK_PTR) {
		if (ft->kind == DT_TK_PTR || ft->kind == DT_TK_ARRAY)
			return ptr_compatible(to, ft);
		return is_null(from);
	}
	return to == ft;
}

static dt_type_t *var_type_of(dt_check_t *cx, dt_node_t *r)
{
	dt_type_t *t = r->type;

	if (dt_type_in_register(t) || dt_check_is_string(t) ||
	    dt_type_is_action_value(t))	/* then D_CG_EXPR */
		return t;
	if (t->kind == DT_TK_ARRAY && is_char_ptr(t))
		return dt_type_string(tt(cx));
	if (dt_sou_type(t) && t->size > 0)	/* by value: dt_cg_sou.c */
		return t;
	if (t->kind == DT_TK_ARRAY || t->kind == DT_TK_FUNC)
		ERR(cx, D_OP_ARRFUN, r, "operator = may not be applied to "
		    "operand of type \"%s\"", t->name);
	ERR(cx, D_OP_INCOMPAT, r, "operands have incompatible types: "
	    "\"%s\" = \"%s\"", t->name, t->name);
}

static bool subscripts_value(dt_check_t *cx, dt_node_t *l);

/* ---- struct, union and array variables (stored by value) ---- */

bool dt_sou_type(const dt_type_t *t)
{
	return t->kind == DT_TK_STRUCT || t->kind == DT_TK_UNION ||
	       t->kind == DT_TK_ARRAY || dt_type_is_wide_float(t);
}

bool dt_sou_is_var(const dt_node_t *n)
{
	const dt_ident_t *id = n->ident;

	return (n->kind == DT_N_IDENT || n->kind == DT_N_MEMBER ||
		n->kind == DT_N_INDEX) && id != NULL &&
	       (id->kind == DT_IK_GLOBAL || id->kind == DT_IK_SELF ||
		id->kind == DT_IK_THIS);
}

bool dt_sou_rooted(const dt_node_t *n)
{
	if (dt_sou_is_var(n))
		return dt_sou_type(n->ident->type);
	if (n->kind == DT_N_MEMBER && !n->arrow)
		return dt_sou_rooted(n->l);
	if (n->kind == DT_N_INDEX && n->ident == NULL &&
	    n->l->type->kind == DT_TK_ARRAY)
		return dt_sou_rooted(n->l);
	return false;
}

/* Whether checked lvalue n is an object reached through a pointer (*p,
 * p[i], p->m, and members and elements of those): a store there is
 * allowed, and faults at run time unless it lies in D scratch memory
 * (dt_cg_scratch_lvalue). */
static bool through_pointer(const dt_node_t *n)
{
	if (n->kind == DT_N_UNARY)
		return n->op == DT_OP_DEREF;
	if (!n->lvalue || n->ident != NULL)
		return false;
	if (n->kind == DT_N_MEMBER)
		return n->arrow || through_pointer(n->l);
	if (n->kind == DT_N_INDEX)
		return n->l->type->kind == DT_TK_PTR || through_pointer(n->l);
	return false;
}

/* The variable a part of a struct, union or array variable belongs to. */
static const dt_ident_t *sou_root(const dt_node_t *n)
{
	while (!dt_sou_is_var(n))
		n = n->l;
	return n->ident;
}

/* Whether checked lvalue n is a kernel variable (`name), or a member or
 * element of one: an object in kernel memory, which has an address. */
static bool kernel_object(const dt_node_t *n)
{
	if (n->kind == DT_N_IDENT)
		return n->ident != NULL && n->ident->kind == DT_IK_BUILTIN &&
		       n->ident->id == DT_BV_KVAR;
	if (n->ident != NULL || n->l == NULL || n->l->type == NULL)
		return false;	/* self->x, a[k] */
	if ((n->kind == DT_N_MEMBER && !n->arrow) ||
	    (n->kind == DT_N_INDEX && n->l->type->kind == DT_TK_ARRAY))
		return kernel_object(n->l);
	return false;
}

/* &e, DTrace's way: the address of an object reached through a pointer
 * (&p->m, &p[i], &*p), or of an element or member of a global struct,
 * union or array variable (&a[i], &v.m): an address in BPF memory, which
 * a dereference reads as user memory, so that it faults as in DTrace.
 * Other D variables, and their parts, have none. */
static dt_type_t *check_addrof(dt_check_t *cx, dt_node_t *n)
{
	dt_node_t *e = n->l;

	if ((e->kind == DT_N_IDENT && strchr(e->name, '`') == NULL) ||
	    e->kind == DT_N_AGG)
		ERR(cx, D_ADDROF_VAR, n, "cannot take address of dynamic "
		    "variable");
	dt_type_t *t = dt_check_expr(cx, e);
	if (kernel_object(e))
		return n->type = dt_type_ptr(tt(cx), t);
	if (dt_node_is_bitfield(e))
		ERR(cx, D_ADDROF_BITFIELD, n, "cannot take address of "
		    "bit-field");
	if (e->ident != NULL)	/* self->x, this->x, a[k] */
		ERR(cx, D_ADDROF_VAR, n, "cannot take address of dynamic "
		    "variable");
	if (dt_sou_rooted(e) && sou_root(e)->kind == DT_IK_GLOBAL)
		return n->type = dt_type_ptr(tt(cx), t);
	if (dt_sou_rooted(e))
		ERR(cx, D_ADDROF_VAR, n, "cannot take address of dynamic "
		    "object");
	if (!through_pointer(e))
		ERR(cx, D_ADDROF_LVAL, n, "unacceptable operand for unary & "
		    "operator");
	return n->type = dt_type_ptr(tt(cx), t);
}

/* Whether checked lvalue n may be written: a part of a struct, union or
 * array variable, or an object reached through a pointer. */
static bool writable_part(const dt_node_t *n)
{
	return dt_sou_rooted(n) || through_pointer(n);
}

/* Check n->l, the operand of n (op: ++, --, +=...) that n reads and
 * writes, a member or element of such a variable: its type. */
static dt_type_t *sou_operand(dt_check_t *cx, dt_node_t *n, const char *op)
{
	dt_type_t *t = dt_check_expr(cx, n->l);

	if (!writable_part(n->l))
		ERR(cx, D_OP_LVAL, n, "operator %s requires a modifiable "
		    "lvalue as an operand", op);
	if (t->kind == DT_TK_STRING || !dt_type_is_scalar(t))
		ERR(cx, D_OP_SCALAR, n, "operator %s requires an operand of "
		    "scalar type", op);
	return t;
}

/* An array is no lvalue of =, as in C: DTrace refuses a = b of arrays
 * (a variable or a member), whatever their element types. */
static void no_array_store(dt_check_t *cx, dt_node_t *n, const dt_type_t *t)
{
	if (t->kind == DT_TK_ARRAY || t->kind == DT_TK_FUNC)
		ERR(cx, D_OP_ARRFUN, n, "operator = may not be applied to "
		    "operand of type \"%s\"", t->name);
}

/* Check n, an assignment (=) to a member or element of such a variable. */
static dt_type_t *sou_assign(dt_check_t *cx, dt_node_t *n)
{
	dt_type_t *t = dt_check_expr(cx, n->l);

	if (!writable_part(n->l))
		ERR(cx, D_OP_LVAL, n, "operator = requires a modifiable "
		    "lvalue as an operand");
	no_array_store(cx, n, t);
	if ((t->kind == DT_TK_STRING && n->l->kind != DT_N_MEMBER) ||
	    (t->kind != DT_TK_STRING && !dt_type_in_register(t) &&
	     !dt_sou_type(t)))
		ERR(cx, D_OP_LVAL, n, "a member of type %s cannot be "
		    "assigned", t->name);
	if (!dt_check_assignable(t, n->r))
		ERR(cx, D_OP_INCOMPAT, n, "operands have incompatible types: "
		    "\"%s\" = \"%s\"", t->name, n->r->type->name);
	return n->type = t;
}

/* Whether lvalue l is a member or an element of a value (s.x, a[i],
 * m[k].x, this->p[i], *p) rather than a variable. */
static bool member_lvalue(dt_check_t *cx, dt_node_t *l)
{
	dt_identkind_t kind;

	if (l->kind == DT_N_UNARY)
		return l->op == DT_OP_DEREF;
	if (l->kind == DT_N_MEMBER)
		return !var_member(l, &kind);
	return l->kind == DT_N_INDEX &&
	       ((l->l->kind == DT_N_MEMBER && !var_member(l->l, &kind)) ||
		l->l->kind == DT_N_INDEX || subscripts_value(cx, l->l));
}

/* The operands of op= as DTrace checks them: += and -= take an integer,
 * or a pointer on the left (never a string); *= and /= arithmetic
 * operands; the others integers. */
static void check_compound_operands(dt_check_t *cx, dt_node_t *n)
{
	const dt_type_t *lt = n->l->type, *rt = n->r->type;
	const char *op = op_name(n->op);

	switch (n->op) {
	case DT_OP_ADD_ASSIGN: case DT_OP_SUB_ASSIGN:
		if (dt_check_is_string(lt) || dt_check_is_string(rt) ||
		    (lt->kind == DT_TK_PTR && !dt_type_is_integer(rt)))
			ERR(cx, D_OP_INCOMPAT, n, "operands have incompatible "
			    "types: \"%s\" %s \"%s\"", lt->name, op,
			    rt->name);
		if (!dt_type_is_integer(rt) ||
		    (!dt_type_is_integer(lt) && lt->kind != DT_TK_PTR) ||
		    (lt->kind == DT_TK_PTR && lt->base->kind == DT_TK_VOID))
			ERR(cx, D_OP_VFPTR, n, "operator %s requires left-hand "
			    "scalar operand of known size", op);
		break;
	case DT_OP_MUL_ASSIGN: case DT_OP_DIV_ASSIGN:
		if (!dt_type_is_integer(lt) || !dt_type_is_integer(rt))
			ERR(cx, D_OP_ARITH, n, "operator %s requires operands "
			    "of arithmetic type", op);
		break;
	default:
		need_integers(cx, n, op);
		break;
	}
}

/* m op= v, m a member or element of a struct, union or array variable:
 * the rules of op= on a variable. */
static dt_type_t *check_member_compound(dt_check_t *cx, dt_node_t *n)
{
	dt_type_t *t = sou_operand(cx, n, op_name(n->op));

	check_compound_operands(cx, n);
	return n->type = t;
}

/* What a pointer value points to, for DTrace's rule that one variable
 * never holds both a pointer into alloca() memory and another pointer:
 * the code generator bounds loads and stores through the former. */
typedef enum ptr_origin {
	PTR_NEUTRAL,		/* NULL, or no pointer yet */
	PTR_ALLOCA,		/* alloca() memory */
	PTR_OTHER,		/* any other address */
} ptr_origin_t;

static bool is_alloca_call(const dt_node_t *e)
{
	const dt_funcinfo_t *fi;

	return e->kind == DT_N_CALL &&
	       (fi = dt_func_lookup(e->name)) != NULL &&
	       fi->func == DT_F_ALLOCA;
}

static ptr_origin_t ptr_origin(dt_check_t *cx, const dt_node_t *e)
{
	const dt_ident_t *id = e->ident;

	if (is_alloca_call(e))
		return PTR_ALLOCA;
	switch (e->kind) {
	case DT_N_CAST:
		if (e->l->kind == DT_N_INT)	/* (char *)50, (T *)0 */
			break;
		return ptr_origin(cx, e->l);
	case DT_N_BINARY:
		if (e->op == DT_OP_ADD || e->op == DT_OP_SUB)
			return ptr_origin(cx, e->l->type->kind == DT_TK_PTR ?
					  e->l : e->r);
		break;
	case DT_N_TERNARY: {
		ptr_origin_t l = ptr_origin(cx, e->l), r = ptr_origin(cx, e->r);

		if ((l == PTR_ALLOCA && r == PTR_OTHER) ||
		    (l == PTR_OTHER && r == PTR_ALLOCA))
			ERR(cx, D_ALLOCA_INCOMPAT, e, "ternary conditional "
			    "with alloca and non-alloca branches cannot be "
			    "assigned to a variable");
		return l != PTR_NEUTRAL ? l : r;
	}
	case DT_N_IDENT: case DT_N_MEMBER:
		if (id != NULL && (id->kind == DT_IK_GLOBAL ||
				   id->kind == DT_IK_SELF ||
				   id->kind == DT_IK_THIS))
			return (ptr_origin_t)id->ptr_origin;
		break;
	default:
		break;
	}
	return e->is_const && e->ival == 0 ? PTR_NEUTRAL : PTR_OTHER;
}

/* Variable id, a pointer, is assigned n's right operand: it keeps to one
 * origin (NULL does not count), in every clause. */
static void note_ptr_origin(dt_check_t *cx, dt_node_t *n, dt_ident_t *id)
{
	ptr_origin_t o;

	if (id->type->kind != DT_TK_PTR || id->nkeys >= 0)
		return;
	o = ptr_origin(cx, n->r);
	if (o == PTR_NEUTRAL)
		return;
	if (id->ptr_origin != PTR_NEUTRAL && id->ptr_origin != o)
		ERR(cx, D_ALLOCA_INCOMPAT, n, "%s: cannot reuse the same "
		    "identifier for both alloca and non-alloca allocations",
		    id->name);
	id->ptr_origin = (uint8_t)o;
}

static dt_type_t *check_assign(dt_check_t *cx, dt_node_t *n)
{
	if (n->l->kind == DT_N_AGG || (n->l->kind == DT_N_INDEX &&
					n->l->l->kind == DT_N_AGG))
		ERR(cx, D_AGG_FUNC, n, "an aggregation may only be assigned "
		    "in a statement of its own");
	dt_check_expr(cx, n->r);
	if (member_lvalue(cx, n->l) && n->op != DT_OP_ASSIGN)
		return check_member_compound(cx, n);
	if (member_lvalue(cx, n->l))
		return sou_assign(cx, n);
	if (n->op == DT_OP_ASSIGN) {
		dt_ident_t *id = check_var_ref(cx, n->l, var_type_of(cx, n->r));
		no_array_store(cx, n, id->type);
		/* 0 into a struct or union variable clears it (an element of
		 * an associative array or a thread-local is deleted) */
		if (!dt_check_assignable(id->type, n->r) &&
		    !(dt_sou_type(id->type) && dt_check_is_zero(n->r)))
			ERR(cx, D_OP_INCOMPAT, n, "operands have incompatible "
			    "types: \"%s\" = \"%s\"", id->type->name,
			    n->r->type->name);
		note_ptr_origin(cx, n, id);
		n->type = id->type;
		return n->type;
	}
	/* x += v declares x like x = v would */
	dt_ident_t *id = check_var_ref(cx, n->l, dt_type_is_integer(n->r->type)
				       ? var_type_of(cx, n->r) : NULL);
	check_compound_operands(cx, n);
	n->type = id->type;
	return n->type;
}

/* ---- operators ---- */

static uint64_t fold(dt_check_t *cx, dt_node_t *n, const dt_type_t *t,
		     uint64_t a, uint64_t b)
{
	bool s = t->is_signed;

	switch (n->op) {
	case DT_OP_ADD: return a + b;
	case DT_OP_SUB: return a - b;
	case DT_OP_MUL: return a * b;
	case DT_OP_DIV:
	case DT_OP_MOD:
		if (b == 0)
			ERR(cx, D_DIV_ZERO, n, "expression contains division "
			    "by zero");
		if (s && (int64_t)b == -1)
			return n->op == DT_OP_DIV ? -a : 0;
		if (n->op == DT_OP_DIV)
			return s ? (uint64_t)((int64_t)a / (int64_t)b) : a / b;
		return s ? (uint64_t)((int64_t)a % (int64_t)b) : a % b;
	case DT_OP_SHL: return a << (b & 63);
	case DT_OP_SHR:
		return s ? (uint64_t)((int64_t)a >> (b & 63)) : a >> (b & 63);
	case DT_OP_BAND: return a & b;
	case DT_OP_BOR: return a | b;
	case DT_OP_BXOR: return a ^ b;
	default: return 0;
	}
}

static uint64_t fold_cmp(dt_op_t op, bool s, uint64_t a, uint64_t b)
{
	int c = s ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b)
		  : (a > b) - (a < b);
	switch (op) {
	case DT_OP_EQ: return c == 0;
	case DT_OP_NE: return c != 0;
	case DT_OP_LT: return c < 0;
	case DT_OP_LE: return c <= 0;
	case DT_OP_GT: return c > 0;
	default: return c >= 0;
	}
}

static dt_type_t *check_compare(dt_check_t *cx, dt_node_t *n)
{
	dt_type_t *lt = n->l->type, *rt = n->r->type;
	dt_type_t *it = dt_check_int_type(cx);

	if (dt_check_is_string(lt) != dt_check_is_string(rt) &&
	    (n->op == DT_OP_EQ || n->op == DT_OP_NE) &&
	    (dt_check_is_string(lt) ? is_null(n->r) : is_null(n->l))) {
		n->type = it;	/* strchr(s, c) == NULL */
		return it;
	}
	if (dt_check_is_string(lt) != dt_check_is_string(rt) &&
	    (is_char_ptr(lt) || is_char_ptr(rt)))
		ERR(cx, D_OP_INCOMPAT, n, "operator %s: a %s holds an address "
		    "in the traced process, not a string: compare "
		    "copyinstr(%s) instead", op_name(n->op),
		    is_char_ptr(lt) ? lt->name : rt->name,
		    is_char_ptr(lt) ? "left operand" : "right operand");
	if (dt_check_is_string(lt) || dt_check_is_string(rt)) {
		if (!(dt_check_is_string(lt) || is_char_ptr(lt)) ||
		    !(dt_check_is_string(rt) || is_char_ptr(rt)))
			ERR(cx, D_OP_INCOMPAT, n, "operands have "
			    "incompatible types: \"%s\" %s \"%s\"",
			    lt->name, op_name(n->op), rt->name);
		n->type = it;
		return it;
	}
	if (!dt_type_is_scalar(lt) || !dt_type_is_scalar(rt))
		ERR(cx, D_OP_INCOMPAT, n, "operands have incompatible types: "
		    "\"%s\" %s \"%s\"", lt->name, op_name(n->op), rt->name);
	n->type = it;
	if (n->l->is_const && n->r->is_const) {
		bool s = dt_type_is_integer(lt) && dt_type_is_integer(rt) &&
			 arith_type(cx, lt, rt)->is_signed;
		set_const(n, it, fold_cmp(n->op, s, n->l->ival, n->r->ival));
	}
	return it;
}

static dt_type_t *check_logical(dt_check_t *cx, dt_node_t *n)
{
	if (!dt_type_is_scalar(n->l->type) || !dt_type_is_scalar(n->r->type))
		ERR(cx, D_OP_SCALAR, n, "operator %s requires operands of "
		    "scalar type", op_name(n->op));
	n->type = dt_check_int_type(cx);
	if (n->l->is_const && n->r->is_const) {
		bool a = n->l->ival != 0, b = n->r->ival != 0;
		uint64_t v = n->op == DT_OP_LAND ? (a && b) :
			     n->op == DT_OP_LOR ? (a || b) : (a != b);
		set_const(n, n->type, v);
	}
	return n->type;
}

static dt_type_t *check_additive(dt_check_t *cx, dt_node_t *n)
{
	dt_type_t *lt = n->l->type, *rt = n->r->type;

	if ((lt->kind == DT_TK_PTR && lt->base->kind == DT_TK_VOID) ||
	    (rt->kind == DT_TK_PTR && rt->base->kind == DT_TK_VOID))
		ERR(cx, D_OP_INCOMPAT, n, "operands have incompatible types: "
		    "\"%s\" %s \"%s\"", lt->name, op_name(n->op), rt->name);

	if (lt->kind == DT_TK_PTR && dt_type_is_integer(rt))
		return n->type = lt;
	if (n->op == DT_OP_ADD && rt->kind == DT_TK_PTR &&
	    dt_type_is_integer(lt))
		return n->type = rt;
	if (n->op == DT_OP_SUB && lt->kind == DT_TK_PTR &&
	    rt->kind == DT_TK_PTR) {
		if (lt->base->size != rt->base->size)
			ERR(cx, D_OP_INCOMPAT, n, "operator -: pointers to "
			    "different types");
		return n->type = dt_type_int(tt(cx), 8, true);
	}
	if (!dt_type_is_integer(lt) || !dt_type_is_integer(rt))
		ERR(cx, D_OP_INCOMPAT, n, "operands have incompatible types: "
		    "\"%s\" %s \"%s\"", lt->name, op_name(n->op), rt->name);
	return NULL;
}

static dt_type_t *check_binary(dt_check_t *cx, dt_node_t *n)
{
	if (n->op >= DT_OP_ASSIGN && n->op <= DT_OP_XOR_ASSIGN)
		return check_assign(cx, n);
	dt_check_expr(cx, n->l);
	dt_check_expr(cx, n->r);
	switch (n->op) {
	case DT_OP_COMMA:
		n->type = n->r->type;
		return n->type;
	case DT_OP_EQ: case DT_OP_NE: case DT_OP_LT: case DT_OP_LE:
	case DT_OP_GT: case DT_OP_GE:
		return check_compare(cx, n);
	case DT_OP_LAND: case DT_OP_LOR: case DT_OP_LXOR:
		return check_logical(cx, n);
	case DT_OP_ADD: case DT_OP_SUB:
		if (check_additive(cx, n) != NULL)
			return n->type;
		break;
	case DT_OP_MUL: case DT_OP_DIV:
		if (!dt_type_is_integer(n->l->type) ||
		    !dt_type_is_integer(n->r->type))
			ERR(cx, D_OP_ARITH, n, "operator %s requires operands "
			    "of arithmetic type", op_name(n->op));
		break;
	default:	/* % and the bitwise operators */
		need_integers(cx, n, op_name(n->op));
		break;
	}
	if (n->op == DT_OP_SHL || n->op == DT_OP_SHR)
		n->type = promote(cx, n->l->type);
	else
		n->type = arith_type(cx, n->l->type, n->r->type);
	if ((n->op == DT_OP_DIV || n->op == DT_OP_MOD) && n->r->is_const &&
	    n->r->ival == 0)
		ERR(cx, D_DIV_ZERO, n, "expression contains division by zero");
	if (n->l->is_const && n->r->is_const) {
		uint64_t a = normalize(n->type, n->l->ival);
		uint64_t b = n->op == DT_OP_SHL || n->op == DT_OP_SHR ?
			     n->r->ival : normalize(n->type, n->r->ival);
		set_const(n, n->type, fold(cx, n, n->type, a, b));
	}
	return n->type;
}

static dt_type_t *check_incdec(dt_check_t *cx, dt_node_t *n)
{
	if (member_lvalue(cx, n->l))
		return n->type = sou_operand(cx, n, op_name(n->op));
	/* x++ declares x as an int */
	dt_ident_t *id = check_var_ref(cx, n->l, dt_check_int_type(cx));
	if (!dt_type_is_scalar(id->type))
		ERR(cx, D_OP_SCALAR, n, "operator %s requires operand of "
		    "scalar type", op_name(n->op));
	n->type = id->type;
	return n->type;
}

static dt_type_t *check_unary(dt_check_t *cx, dt_node_t *n)
{
	switch (n->op) {
	case DT_OP_PREINC: case DT_OP_PREDEC: case DT_OP_POSTINC:
	case DT_OP_POSTDEC:
		return check_incdec(cx, n);
	case DT_OP_SIZEOF:
		dt_check_expr(cx, n->l);
		if (dt_node_is_bitfield(n->l))
			ERR(cx, D_SIZEOF_BITFIELD, n, "cannot apply sizeof to "
			    "a bit-field");
		if (n->l->type->size == 0 && !dt_check_is_string(n->l->type))
			ERR(cx, D_SIZEOF_TYPE, n, "cannot apply sizeof to an "
			    "operand of unknown size");
		set_const(n, dt_type_int(tt(cx), 8, false),
			  dt_check_is_string(n->l->type) ? cx->strsize :
			  n->l->type->size);
		return n->type;
	case DT_OP_STRINGOF:
		dt_check_expr(cx, n->l);
		if (!dt_type_is_scalar(n->l->type) &&
		    !dt_check_is_string(n->l->type) && !is_char_ptr(n->l->type))
			ERR(cx, D_OP_SCALAR, n, "stringof( ) requires a scalar "
			    "or string operand");
		return n->type = dt_type_string(tt(cx));
	case DT_OP_DEREF:
		dt_check_expr(cx, n->l);
		if (n->l->type->kind != DT_TK_PTR &&
		    n->l->type->kind != DT_TK_ARRAY)
			ERR(cx, D_OP_PTR, n, "operator * requires an operand "
			    "of pointer type");
		if (n->l->type->base->kind == DT_TK_VOID ||
		    n->l->type->base->kind == DT_TK_FUNC)
			ERR(cx, D_OP_PTR, n, "cannot dereference a pointer to "
			    "%s", n->l->type->base->name);
		n->lvalue = true;
		return n->type = n->l->type->base;
	case DT_OP_ADDROF:
		return check_addrof(cx, n);
	default:
		break;
	}
	dt_check_expr(cx, n->l);
	if (n->op == DT_OP_LNOT) {
		need_scalar(cx, n->l, "!");
		n->type = dt_check_int_type(cx);
		if (n->l->is_const)
			set_const(n, n->type, n->l->ival == 0);
		return n->type;
	}
	if (n->op == DT_OP_BITNOT)
		need_integer(cx, n->l, op_name(n->op));
	else if (!dt_type_is_integer(n->l->type))
		ERR(cx, D_OP_ARITH, n, "operator %s requires an operand of "
		    "arithmetic type", op_name(n->op));
	n->type = promote(cx, n->l->type);
	if (n->l->is_const) {
		uint64_t v = n->l->ival;
		v = n->op == DT_OP_NEG ? -v : n->op == DT_OP_BITNOT ? ~v : v;
		set_const(n, n->type, v);
	}
	return n->type;
}

static dt_type_t *check_ternary(dt_check_t *cx, dt_node_t *n)
{
	dt_check_expr(cx, n->cond);
	if (!dt_type_is_scalar(n->cond->type))
		ERR(cx, D_OP_SCALAR, n, "operator ?: expression must be of "
		    "scalar type");
	dt_type_t *lt = dt_check_expr(cx, n->l), *rt = dt_check_expr(cx, n->r);
	if (dt_check_is_string(lt) || dt_check_is_string(rt)) {
		if (!dt_check_is_string(lt) || !dt_check_is_string(rt))
			ERR(cx, D_OP_INCOMPAT, n, "operator ?: operands must "
			    "have compatible types");
		n->type = lt;
	} else if (dt_type_is_integer(lt) && dt_type_is_integer(rt)) {
		n->type = arith_type(cx, lt, rt);
	} else if (dt_type_is_scalar(lt) && dt_type_is_scalar(rt)) {
		n->type = lt->kind == DT_TK_PTR ? lt : rt;
	} else if (dt_type_is_float(lt) && lt == rt &&
		   dt_type_in_register(lt)) {	/* the same type: its bits */
		n->type = lt;
	} else {
		ERR(cx, D_OP_INCOMPAT, n, "operator ?: operands must have "
		    "compatible types");
	}
	if (n->cond->is_const && n->l->is_const && n->r->is_const)
		set_const(n, n->type, n->cond->ival ? n->l->ival : n->r->ival);
	return n->type;
}

static dt_type_t *check_cast(dt_check_t *cx, dt_node_t *n)
{
	dt_type_t *from = dt_check_expr(cx, n->l), *to = n->ctype;

	if (to->kind == DT_TK_VOID)
		return n->type = to;
	if (dt_type_is_float(to) && to == from)	/* the only cast of a float */
		return n->type = to;
	if (dt_type_is_scalar(to) && (dt_type_is_scalar(from) ||
				      from->kind == DT_TK_ARRAY)) {
		n->type = to;
		if (n->l->is_const)
			set_const(n, to, n->l->ival);
		return to;
	}
	if (dt_check_is_string(to) && (dt_check_is_string(from) ||
				       is_char_ptr(from)))
		return n->type = to;
	ERR(cx, D_OP_INCOMPAT, n, "invalid cast expression: \"%s\" to \"%s\"",
	    from->name, to->name);
}

/* ---- indexing and members ---- */

/* args[N]: the probes of the clause must agree on the type. */
static dt_type_t *check_args(dt_check_t *cx, dt_node_t *n)
{
	if (n->args == NULL || n->args->next != NULL)
		ERR(cx, D_ARGS_IDX, n, "args[ ] takes one index");
	dt_check_expr(cx, n->args);
	if (!n->args->is_const)
		ERR(cx, D_ARGS_IDX, n, "index of args[ ] must be a constant");
	int64_t i = (int64_t)n->args->ival;
	dtrace_probe_t *p0 = cx->nprobes > 0 ? cx->probes[0] : NULL;
	dt_type_t *t = NULL;
	for (int k = 0; k < cx->nprobes; k++) {
		dtrace_probe_t *p = cx->probes[k];
		if (cx->probe_ctypes != NULL)
			cx->probe_ctypes(cx->dtp, p);
		if (i < 0 || i >= p->nargs || i >= DTRACE_ARGS_MAX ||
		    p->argtypes[i] == NULL)
			ERR(cx, D_ARGS_IDX, n, "index %lld is out of range for "
			    "%s:%s:%s:%s args[ ]", (long long)i, p->prv,
			    p->mod, p->fun, p->prb);
		if (t != NULL && t != p->argtypes[i])
			ERR(cx, D_ARGS_IDX, n, "args[%lld] has type %s in "
			    "%s:%s:%s:%s but %s in %s:%s:%s:%s", (long long)i,
			    t->name, p0->prv, p0->mod, p0->fun, p0->prb,
			    p->argtypes[i]->name, p->prv, p->mod, p->fun,
			    p->prb);
		t = p->argtypes[i];
	}
	if (t == NULL)
		ERR(cx, D_ARGS_IDX, n, "args[ ] is not available here");
	n->ident = n->l->ident;
	return n->type = t;
}

/*
 * Whether x[i] subscripts the value of x rather than looking a key up:
 * x is a string, a pointer or an array (a string literal, a built-in
 * variable, a variable already known as one), or this->x, which cannot
 * be an associative array.
 */
static bool subscripts_value(dt_check_t *cx, dt_node_t *l)
{
	dt_identkind_t kind = DT_IK_GLOBAL;
	dt_bvar_t bv;
	int argn;

	if (l->kind == DT_N_STRING)
		return true;
	if (l->kind == DT_N_IDENT && dt_bvar_lookup(l->name, &bv, &argn))
		return lookup_var(cx, DT_IK_GLOBAL, l->name) == NULL;
	if (l->kind != DT_N_IDENT && !var_member(l, &kind))
		return false;
	if (kind == DT_IK_THIS)
		return true;
	dt_ident_t *id = lookup_var(cx, kind, l->name);
	return id != NULL && id->nkeys < 0 && !id->implicit &&
	       (id->type->kind == DT_TK_PTR || id->type->kind == DT_TK_ARRAY ||
		dt_check_is_string(id->type));
}

/* A constant index of an array of known size (a declared variable, a
 * member) lies within it, as DTrace checks; a flexible array member
 * (no elements) is left to run time. */
static void check_bounds(dt_check_t *cx, dt_node_t *n, const dt_type_t *t)
{
	const dt_node_t *i = n->args;

	if (t->kind != DT_TK_ARRAY || t->nelems == 0 || !i->is_const)
		return;
	if ((i->type->is_signed && (int64_t)i->ival < 0) ||
	    i->ival >= t->nelems)
		ERR(cx, D_ARR_BOUNDS, n, "index outside array bounds: %lld, "
		    "max is %llu", (long long)i->ival,
		    (unsigned long long)t->nelems);
}

static dt_type_t *check_index(dt_check_t *cx, dt_node_t *n)
{
	dt_node_t *l = n->l;
	dt_bvar_t bv;
	int argn;
	dt_identkind_t kind;

	if (l->kind == DT_N_AGG)
		ERR(cx, D_AGG_SCALAR, n, "aggregation @%s may not be used as "
		    "a value", l->name);
	if (l->kind == DT_N_IDENT && dt_bvar_lookup(l->name, &bv, &argn) &&
	    (bv == DT_BV_ARGS || bv == DT_BV_UREGS)) {
		l->lvalue = true;
		l->type = check_bvar(cx, l, bv, argn);
		if (bv == DT_BV_ARGS)
			return check_args(cx, n);
		if (n->args == NULL || n->args->next != NULL)
			ERR(cx, D_PROTO_LEN, n, "uregs[ ] takes one index");
		dt_check_expr(cx, n->args);
		if (!n->args->is_const ||
		    dt_ureg_ptregs_offset((int64_t)n->args->ival) < 0)
			ERR(cx, D_ARGS_IDX, n, "index of uregs[ ] must be a "
			    "valid register constant");
		n->ident = l->ident;
		return n->type = dt_type_int(tt(cx), 8, false);
	}
	if (subscripts_value(cx, l))
		goto array;
	if ((l->kind == DT_N_IDENT &&
	     (lookup_var(cx, DT_IK_GLOBAL, l->name) != NULL ||
	      !dt_bvar_lookup(l->name, &bv, &argn))) ||
	    var_member(l, &kind)) {
		if (l->kind == DT_N_IDENT &&
		    lookup_var(cx, DT_IK_GLOBAL, l->name) == NULL &&
		    lookup_var(cx, DT_IK_INLINE, l->name) != NULL)
			goto array;
		check_var_ref(cx, n, NULL);
		n->lvalue = true;
		return n->type;
	}
array:
	dt_check_expr(cx, l);
	if (l->type->kind != DT_TK_PTR && l->type->kind != DT_TK_ARRAY &&
	    !dt_check_is_string(l->type))
		ERR(cx, D_OP_PTR, n, "operator [ ] requires an array or a "
		    "pointer");
	if (n->args == NULL || n->args->next != NULL)
		ERR(cx, D_OP_INT, n, "operator [ ] takes one index");
	dt_check_expr(cx, n->args);
	need_integer(cx, n->args, "[ ]");
	if (dt_check_is_string(l->type))	/* a string as a char array */
		return n->type = dt_type_int(tt(cx), 1, true);
	check_bounds(cx, n, l->type);
	n->lvalue = true;
	return n->type = l->type->base;
}

/* t, the operand of n's . or -> (through the pointer), is a complete
 * struct or union, else DTrace's error. */
static void check_member_of(dt_check_t *cx, dt_node_t *n, dt_type_t *t)
{
	if (t->kind != DT_TK_STRUCT && t->kind != DT_TK_UNION) {
		if (n->arrow)
			ERR(cx, D_OP_SOU, n, "operator -> cannot be applied to "
			    "pointer to type \"%s\"; must be applied to a "
			    "struct or union pointer", t->name);
		ERR(cx, D_OP_SOU, n, "operator . cannot be applied to type "
		    "\"%s\"; must be applied to a struct or union", t->name);
	}
	if (!t->complete && !dt_btf_complete(cx->dtp, t))
		ERR(cx, D_OP_INCOMPLETE, n, "operator %s cannot be applied to "
		    "a forward declaration: no %s definition is available",
		    n->arrow ? "->" : ".", t->name);
}

/* The type a read of bit-field m gives, promoted as C does: int when int
 * holds all its values, else unsigned int when that does, else its own. */
static dt_type_t *bitfield_type(dt_check_t *cx, dt_node_t *n,
				const dt_member_t *m)
{
	bool is_signed = m->type->is_signed;

	if (dt_member_unit_size(m) == 0)
		ERR(cx, D_OP_STRUCT, n, "bit-field %s spans more than 8 "
		    "bytes", n->name);
	if (m->bit_size < 32 || (m->bit_size == 32 && is_signed))
		return dt_check_int_type(cx);
	return dt_type_int(tt(cx), m->bit_size == 32 ? 4 : 8, is_signed);
}

/* Whether n is a bit-field member. */
bool dt_node_is_bitfield(const dt_node_t *n)
{
	return n->kind == DT_N_MEMBER && n->member != NULL &&
	       n->member->bit_size != 0;
}

static dt_type_t *check_member(dt_check_t *cx, dt_node_t *n)
{
	dt_identkind_t kind;

	dt_node_t *x = dt_xlate_operand(cx, n->l);
	if (x != NULL)
		return dt_xlate_member(cx, n, x);

	if (var_member(n, &kind)) {
		dt_ident_t *id = lookup_var(cx, kind, n->name);
		if (id == NULL) {
			/* as in DTrace, self->x and this->x exist once named;
			 * an unassigned one reads as 0 */
			id = dt_check_declare_var(cx, kind, n->name,
					    dt_type_int(tt(cx), 8, true), -1,
					    NULL, n->line);
			id->implicit = true;
		}
		if (id->nkeys >= 0)
			ERR(cx, D_IDENT_BADREF, n, "%s->%s is an associative "
			    "array and must be used with a key", n->l->name,
			    n->name);
		n->ident = id;
		n->lvalue = true;
		return n->type = id->type;
	}
	dt_type_t *t = dt_check_expr(cx, n->l);
	if (n->arrow) {
		if (t->kind != DT_TK_PTR)
			ERR(cx, D_OP_PTR, n, "operator -> must be applied to a "
			    "pointer");
		t = t->base;
	}
	check_member_of(cx, n, t);
	dt_member_t *m = dt_type_member(t, n->name);
	if (m == NULL)
		ERR(cx, D_TYPE_MEMBER, n, "%s is not a member of %s", n->name,
		    t->name);
	n->lvalue = true;
	n->member = m;
	n->type = m->bit_size != 0 ? bitfield_type(cx, n, m) : m->type;
	/* A string member is strsize bytes of a D variable; in memory
	 * reached through a pointer it would be read as a char array,
	 * which D does not do for a string */
	if (m->type->kind == DT_TK_STRING && through_pointer(n))
		ERR(cx, D_OP_STRUCT, n, "string member %s is not supported "
		    "through a pointer", n->name);
	return n->type;
}

dt_type_t *dt_check_expr(dt_check_t *cx, dt_node_t *n)
{
	switch (n->kind) {
	case DT_N_INT:
		if (n->type == NULL)
			n->type = n->ival <= INT32_MAX ? dt_check_int_type(cx) :
				  n->ival <= INT64_MAX ?
				  dt_type_int(tt(cx), 8, true) :
				  dt_type_int(tt(cx), 8, false);
		n->is_const = true;
		n->ival = normalize(n->type, n->ival);
		return n->type;
	case DT_N_STRING:
		if (n->slen > cx->strsize)
			ERR(cx, D_STR_TOOBIG, n, "string literal is longer "
			    "than strsize (%u)", cx->strsize);
		return n->type = dt_type_string(tt(cx));
	case DT_N_IDENT:
		return n->type = check_ident(cx, n);
	case DT_N_AGG:
		ERR(cx, D_AGG_SCALAR, n, "aggregation @%s may not be used as "
		    "a value", n->name);
	case DT_N_UNARY:
		return check_unary(cx, n);
	case DT_N_BINARY:
		return check_binary(cx, n);
	case DT_N_TERNARY:
		return check_ternary(cx, n);
	case DT_N_CAST:
		return check_cast(cx, n);
	case DT_N_SIZEOF_TYPE:
		if (n->ctype->size == 0 && !dt_check_is_string(n->ctype))
			ERR(cx, D_SIZEOF_TYPE, n, "cannot apply sizeof to an "
			    "operand of unknown size");
		set_const(n, dt_type_int(tt(cx), 8, false),
			  dt_check_is_string(n->ctype) ? cx->strsize :
			  n->ctype->size);
		return n->type;
	case DT_N_CALL:
		return check_call(cx, n);
	case DT_N_INDEX:
		return check_index(cx, n);
	case DT_N_MEMBER:
		return check_member(cx, n);
	case DT_N_OFFSETOF: {
		dt_member_t *m = NULL;
		if (n->ctype->kind == DT_TK_STRUCT ||
		    n->ctype->kind == DT_TK_UNION)
			m = dt_type_member(n->ctype, n->name);
		if (m == NULL)
			ERR(cx, D_MEMBER_UNDEF, n, "%s is not a member of %s",
			    n->name, n->ctype->name);
		if (m->bit_size != 0)
			ERR(cx, D_OFFSETOF_BITFIELD, n, "cannot take offset of "
			    "a bit-field: %s", n->name);
		set_const(n, dt_type_int(tt(cx), 8, false), m->offset);
		return n->type;
	}
	case DT_N_XLATE:
		return n->type = dt_xlate_value(cx, n, n);
	default:
		ERR(cx, D_SYNTAX, n, "statement used as an expression");
	}
}

/* ---- statements ---- */
static void check_stmts(dt_check_t *cx, dt_node_t *s);

static bool is_agg_lvalue(const dt_node_t *l)
{
	return l->kind == DT_N_AGG ||
	       (l->kind == DT_N_INDEX && l->l->kind == DT_N_AGG);
}

static void check_stmt(dt_check_t *cx, dt_node_t *s)
{
	dt_node_t *e = s->l;

	switch (s->kind) {
	case DT_N_EXPR_STMT:
		if (e->kind == DT_N_CALL) {
			const dt_funcinfo_t *fi = dt_func_lookup(e->name);
			if (fi != NULL && fi->implemented &&
			    fi->fclass == DT_FC_ACTION) {
				check_action(cx, e, fi);
				return;
			}
		}
		if (e->kind == DT_N_BINARY && e->op == DT_OP_ASSIGN &&
		    is_agg_lvalue(e->l)) {
			if (cx->speculates)
				ERR(cx, D_AGG_SPEC, e, "aggregating actions may "
				    "not follow speculate( )");
			if (cx->commits)
				ERR(cx, D_AGG_COMM, e, "aggregating actions may "
				    "not follow commit( )");
			dt_check_agg_assign(cx, e);
			cx->has_aggs = true;
			return;
		}
		dt_check_expr(cx, e);
		return;
	case DT_N_IF:
		dt_check_expr(cx, s->cond);
		need_scalar(cx, s->cond, "if");
		cx->depth_if++;
		check_stmts(cx, s->l);
		check_stmts(cx, s->r);
		cx->depth_if--;
		return;
	case DT_N_BLOCK:
		check_stmts(cx, s->l);
		return;
	default:
		ERR(cx, D_SYNTAX, s, "expression used as a statement");
	}
}

static void check_stmts(dt_check_t *cx, dt_node_t *s)
{
	for (; s != NULL; s = s->next)
		check_stmt(cx, s);
}

void dt_check_clause(dt_check_t *cx, const dt_clause_ast_t *c)
{
	if (c->pred != NULL) {
		dt_check_expr(cx, c->pred);
		if (!dt_type_is_scalar(c->pred->type))
			ERR(cx, D_PRED_SCALAR, c->pred, "predicate result must "
			    "be of scalar type");
	}
	check_stmts(cx, c->body);
	dt_check_action_values(cx);
}

void dt_check_init(dt_check_t *cx, dt_pcb_t *pcb, dt_idtab_t *idents,
		   uint32_t strsize, uint32_t rec_max)
{
	memset(cx, 0, sizeof(*cx));
	cx->pcb = pcb;
	cx->dtp = pcb->dtp;
	cx->idents = idents;
	cx->strsize = strsize;
	cx->rec_max = rec_max;
}
