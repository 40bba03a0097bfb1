/* SPDX-License-Identifier: MIT */
/*
 * dt_check_xlate.c: translators and the xlate operator, in the checker.
 *
 *	translator struct out < struct in *P > { member = expr; ... };
 *	xlate <struct out> (e).member	xlate <struct out *> (e)->member
 *
 * A translator is kept as the parser made it: its member expressions are
 * never compiled on their own.  A use of a member is rewritten, in the
 * checker, into a copy of that member's expression in which every use of
 * the parameter is a copy of the translated expression, cast to the
 * member's type; the copy is then checked and compiled like any other
 * expression, so a translator costs nothing more than writing its
 * expression by hand.  Copies are made in the arena of the compile that
 * uses them; translators of D libraries and earlier programs live as long
 * as the session (dtp->decl_progs, kept by dt_lib.c).
 *
 * Declaring a translator checks each member expression once, with the
 * parameter standing for an lvalue of the input type (`*(in *)0`), so
 * that a member of the wrong type is reported where it is defined
 * (D_XLATE_INCOMPAT), as DTrace does.
 *
 * A member read through xlate, or through an inline defined as an xlate
 * (`inline psinfo_t *p = xlate <psinfo_t *> (P);`, as DTrace's libraries
 * write them), costs its own expression only; a whole translated struct
 * is built member by member in a clause-local slot (xlate_build()), by
 * the code generator (dt_cg_xlate.c).
 */
#include <stdio.h>
#include <string.h>

#include "dt_check.h"

#define ERR(cx, tag, n, ...) dt_pcb_error((cx)->pcb, tag, (n)->line, __VA_ARGS__)

static dt_node_t *clone_tree(dt_check_t *cx, const dt_node_t *n);

static dt_node_t *clone_list(dt_check_t *cx, const dt_node_t *n)
{
	dt_node_t *head = NULL, **tail = &head;

	for (; n != NULL; n = n->next) {
		*tail = clone_tree(cx, n);
		tail = &(*tail)->next;
	}
	return head;
}

/* A copy of n and what hangs from it, as the parser made it (the
 * checker's decorations are left out, so that the copy is checked anew). */
static dt_node_t *clone_tree(dt_check_t *cx, const dt_node_t *n)
{
	if (n == NULL)
		return NULL;
	dt_node_t *c = dt_pcb_alloc(cx->pcb, sizeof(*c));

	*c = *n;
	c->next = NULL;
	c->l = clone_tree(cx, n->l);
	c->r = clone_tree(cx, n->r);
	c->cond = clone_tree(cx, n->cond);
	c->args = clone_list(cx, n->args);
	if (n->kind != DT_N_INT)	/* an integer's type is its suffix's */
		c->type = NULL;
	c->ident = NULL;
	c->lvalue = false;
	c->is_const = false;
	return c;
}

/* Replace, in a tree just copied, each identifier param by a copy of arg,
 * and give every node the line of the use.  A list (call arguments,
 * subscripts) goes on through next. */
static void subst(dt_check_t *cx, dt_node_t *n, const char *param,
		  const dt_node_t *arg, int line, bool list)
{
	for (; n != NULL; n = list ? n->next : NULL) {
		if (n->kind == DT_N_IDENT && strcmp(n->name, param) == 0) {
			dt_node_t *next = n->next;
			*n = *clone_tree(cx, arg);
			n->next = next;
			continue;
		}
		n->line = line;
		subst(cx, n->l, param, arg, line, false);
		subst(cx, n->r, param, arg, line, false);
		subst(cx, n->cond, param, arg, line, false);
		subst(cx, n->args, param, arg, line, true);
	}
}

/* A copy of member m's expression with the parameter replaced by arg. */
static dt_node_t *member_expr(dt_check_t *cx, const dt_xlator_t *xl,
			      const dt_xlmember_t *m, const dt_node_t *arg,
			      int line)
{
	dt_node_t *e = clone_tree(cx, m->expr);

	subst(cx, e, xl->param, arg, line, false);
	return e;
}

static const dt_xlmember_t *xlator_member(const dt_xlator_t *xl,
					  const char *name)
{
	for (const dt_xlmember_t *m = xl->members; m != NULL; m = m->next)
		if (strcmp(m->name, name) == 0)
			return m;
	return NULL;
}

/* The translators a compile sees: its own program's, then the D
 * libraries'.  i counts from 0; NULL after the last program. */
static const dt_program_ast_t *xlator_prog(dt_check_t *cx, int i)
{
	if (i == 0)
		return cx->pcb->prog;
	return i - 1 < cx->dtp->ndecl_progs ? cx->dtp->decl_progs[i - 1] : NULL;
}

/* The translator from in to out: one whose input type is in, else one
 * whose input type an expression of type in may be assigned to. */
static const dt_xlator_t *xlator_find(dt_check_t *cx, const dt_type_t *out,
				      const dt_node_t *e)
{
	const dt_program_ast_t *p;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; (p = xlator_prog(cx, i)) != NULL; i++)
			for (const dt_xlator_t *xl = p->xlators; xl != NULL;
			     xl = xl->next)
				if (xl->out == out && (xl->in == e->type ||
				    (pass == 1 && dt_check_assignable(xl->in,
								      e))))
					return xl;
	return NULL;
}

/* An lvalue of type t that reads nothing: what a translator's parameter
 * stands for while its members are checked. */
static dt_node_t *placeholder(dt_check_t *cx, dt_type_t *t, int line)
{
	dt_node_t *zero = dt_pcb_alloc(cx->pcb, sizeof(*zero));
	dt_node_t *cast = dt_pcb_alloc(cx->pcb, sizeof(*cast));
	dt_node_t *deref = dt_pcb_alloc(cx->pcb, sizeof(*deref));

	zero->kind = DT_N_INT;
	zero->line = line;
	cast->kind = DT_N_CAST;
	cast->line = line;
	cast->ctype = dt_type_ptr(cx->dtp->types, t);
	cast->l = zero;
	deref->kind = DT_N_UNARY;
	deref->op = DT_OP_DEREF;
	deref->line = line;
	deref->l = cast;
	return deref;
}

static void check_redecl(dt_check_t *cx, const dt_xlator_t *xl)
{
	const dt_program_ast_t *p;

	for (int i = 0; (p = xlator_prog(cx, i)) != NULL; i++)
		for (const dt_xlator_t *o = p->xlators; o != NULL && o != xl;
		     o = o->next)
			if (o->out == xl->out && o->in == xl->in)
				dt_pcb_error(cx->pcb, D_XLATE_REDECL, xl->line,
					     "translator from %s to %s has "
					     "already been declared",
					     xl->in->name, xl->out->name);
}

static void check_member(dt_check_t *cx, const dt_xlator_t *xl,
			 const dt_xlmember_t *m)
{
	dt_type_t *mt = dt_type_member(xl->out, m->name)->type;
	dt_node_t *e = member_expr(cx, xl, m, placeholder(cx, xl->in, m->line),
				   m->line);

	dt_check_expr(cx, e);
	if (!dt_check_assignable(mt, e))
		dt_pcb_error(cx->pcb, D_XLATE_INCOMPAT, m->line, "translator "
			     "member %s definition uses incompatible types: "
			     "\"%s\" = \"%s\"", m->name, mt->name,
			     e->type->name);
}

void dt_xlate_declare(dt_check_t *cx, const dt_program_ast_t *prog)
{
	for (const dt_xlator_t *xl = prog->xlators; xl != NULL; xl = xl->next) {
		check_redecl(cx, xl);
		for (const dt_xlmember_t *m = xl->members; m != NULL;
		     m = m->next) {
			for (const dt_xlmember_t *o = xl->members; o != m;
			     o = o->next)
				if (strcmp(o->name, m->name) == 0)
					dt_pcb_error(cx->pcb, D_XLATE_MEMB,
						     m->line, "translator "
						     "member %s redeclared",
						     m->name);
			check_member(cx, xl, m);
		}
	}
}

/* The struct or union xlate <ctype> yields, for operator . or -> (arrow);
 * NULL when ctype is not one. */
static dt_type_t *xlate_out(const dt_node_t *x, bool arrow)
{
	dt_type_t *t = x->ctype;

	if (arrow != (t->kind == DT_TK_PTR))
		return NULL;
	if (arrow)
		t = t->base;
	return t->kind == DT_TK_STRUCT || t->kind == DT_TK_UNION ? t : NULL;
}

/* The translator xlate node x uses; x->l is checked. */
static const dt_xlator_t *xlate_lookup(dt_check_t *cx, dt_node_t *x,
				       dt_type_t *out)
{
	dt_type_t *in = dt_check_expr(cx, x->l);
	const dt_xlator_t *xl = xlator_find(cx, out, x->l);

	if (xl == NULL)
		ERR(cx, D_XLATE_NONE, x, "cannot translate from \"%s\" to "
		    "\"%s\"", in->name, x->ctype->name);
	return xl;
}

static dt_node_t *new_node(dt_check_t *cx, dt_nodekind_t kind, int line)
{
	dt_node_t *n = dt_pcb_alloc(cx->pcb, sizeof(*n));

	n->kind = kind;
	n->line = line;
	return n;
}

/* args[i] of probes whose provider gives it a translated type (the sched
 * provider's lwpsinfo_t *, from the kernel's struct task_struct *):
 * xlate <that type> ((native type)argN), as DTrace translates it; NULL
 * for any other args[i] (read as its own type). */
static dt_node_t *args_operand(dt_check_t *cx, const dt_node_t *n)
{
	dt_type_t *t = NULL, *native = NULL;
	int map = -1;

	if (n->l->kind != DT_N_IDENT || strcmp(n->l->name, "args") != 0 ||
	    n->args == NULL || n->args->next != NULL ||
	    n->args->kind != DT_N_INT || n->args->ival >= DTRACE_ARGV_LOW ||
	    cx->nprobes == 0 || dt_idtab_lookup(cx->idents, DT_IK_GLOBAL,
						  "args") != NULL)
		return NULL;
	for (int k = 0; k < cx->nprobes; k++) {
		dtrace_probe_t *p = cx->probes[k];
		int i = (int)n->args->ival;
		if (cx->probe_ctypes != NULL)
			cx->probe_ctypes(cx->dtp, p);
		if (i >= p->nargs || p->args[i].xlate == NULL ||
		    p->argtypes[i] == p->nativetypes[i] ||
		    p->argtypes[i]->kind != DT_TK_PTR ||
		    (k > 0 && (p->argtypes[i] != t ||
			       p->nativetypes[i] != native)))
			return NULL;
		t = p->argtypes[i];
		native = p->nativetypes[i];
		map = p->args[i].mapping >= 0 &&
		      p->args[i].mapping < DTRACE_ARGV_LOW ?
		      p->args[i].mapping : i;
	}
	char *name = dt_pcb_alloc(cx->pcb, 5);	/* arg0 .. arg9 */
	name[0] = 'a', name[1] = 'r', name[2] = 'g';
	name[3] = (char)('0' + map);
	dt_node_t *x = new_node(cx, DT_N_XLATE, n->line);
	x->ctype = t;
	x->l = new_node(cx, DT_N_CAST, n->line);
	x->l->ctype = native;
	x->l->l = new_node(cx, DT_N_IDENT, n->line);
	x->l->l->name = name;
	return x;
}

dt_node_t *dt_xlate_operand(dt_check_t *cx, const dt_node_t *n)
{
	if (n->kind == DT_N_XLATE)
		return (dt_node_t *)n;
	if (n->kind == DT_N_INDEX)
		return args_operand(cx, n);
	if (n->kind != DT_N_IDENT)
		return NULL;
	dt_ident_t *id = dt_idtab_lookup(cx->idents, DT_IK_INLINE, n->name);
	if (id == NULL || id->kind != DT_IK_INLINE ||
	    dt_idtab_lookup(cx->idents, DT_IK_GLOBAL, n->name) != NULL ||
	    id->expr->kind != DT_N_XLATE)
		return NULL;
	return id->expr;
}

dt_type_t *dt_xlate_member(dt_check_t *cx, dt_node_t *n, dt_node_t *x)
{
	dt_node_t *next = n->next;
	dt_type_t *out = xlate_out(x, n->arrow);

	if (out == NULL)
		ERR(cx, n->arrow ? D_OP_PTR : D_OP_STRUCT, n, "operator %s "
		    "requires %s struct or union", n->arrow ? "->" : ".",
		    n->arrow ? "a pointer to a" : "a");
	dt_node_t *arg = clone_tree(cx, x->l);
	const dt_xlator_t *xl = xlate_lookup(cx, x, out);
	const dt_xlmember_t *m = xlator_member(xl, n->name);
	dt_member_t *om = dt_type_member(out, n->name);

	if (om == NULL)
		ERR(cx, D_MEMBER_UNDEF, n, "%s is not a member of %s", n->name,
		    out->name);
	if (m == NULL)
		ERR(cx, D_XLATE_NOCONV, n, "translator does not define "
		    "conversion for member: %s", n->name);
	dt_node_t *e = member_expr(cx, xl, m, arg, n->line);
	if (dt_type_in_register(om->type)) {
		/* the value is the member's, as an assignment would make it */
		dt_node_t *cast = dt_pcb_alloc(cx->pcb, sizeof(*cast));
		cast->kind = DT_N_CAST;
		cast->line = n->line;
		cast->ctype = om->type;
		cast->l = e;
		e = cast;
	}
	*n = *e;
	n->next = next;
	return dt_check_expr(cx, n);
}

/* The checked expression of translator member m for the struct being
 * built, cast to the member's type, its name in the cast's name. */
static dt_node_t *member_value(dt_check_t *cx, const dt_xlator_t *xl,
			       const dt_xlmember_t *m, const dt_node_t *arg,
			       dt_type_t *out, int line)
{
	dt_member_t *om = dt_type_member(out, m->name);
	dt_node_t *cast = dt_pcb_alloc(cx->pcb, sizeof(*cast));

	if (!dt_type_in_register(om->type))
		dt_pcb_error(cx->pcb, D_XLATE_INCOMPAT, line, "translator "
			     "member %s of type %s cannot be translated into a "
			     "value: read it with operator . or ->", m->name,
			     om->type->name);
	cast->kind = DT_N_CAST;
	cast->line = line;
	cast->ctype = om->type;
	cast->l = member_expr(cx, xl, m, arg, line);
	cast->name = m->name;
	dt_check_expr(cx, cast);
	return cast;
}

/*
 * A whole translated struct: built, when the expression runs, in a
 * clause-local slot of its own (a this-> variable no program can name),
 * every member the translator defines computed and the others zero.
 * Its value is the slot's address: a struct copied into a variable or
 * traced, or the pointer xlate <T *> yields.
 */
static dt_type_t *xlate_build(dt_check_t *cx, dt_node_t *x, dt_type_t *out)
{
	dt_node_t *arg = clone_tree(cx, x->l), **tail = &x->args;
	const dt_xlator_t *xl = xlate_lookup(cx, x, out);
	char name[32];

	snprintf(name, sizeof(name), "xlate`%u", cx->idents->nhidden++);
	x->ident = dt_check_declare_var(cx, DT_IK_THIS, name, out, -1, NULL,
					x->line);
	for (const dt_xlmember_t *m = xl->members; m != NULL; m = m->next) {
		*tail = member_value(cx, xl, m, arg, out, x->line);
		tail = &(*tail)->next;
	}
	return x->type = x->ctype;
}

dt_type_t *dt_xlate_value(dt_check_t *cx, dt_node_t *n, dt_node_t *x)
{
	dt_type_t *out = xlate_out(x, x->ctype->kind == DT_TK_PTR);

	if (out == NULL)	/* no translator yields it: DTrace's words */
		ERR(cx, D_XLATE_NONE, n, "cannot translate from \"%s\" to "
		    "\"%s\"", dt_check_expr(cx, x->l)->name, x->ctype->name);
	if (!cx->in_clause) {	/* an inline's definition */
		if (x->l->type == NULL)
			xlate_lookup(cx, x, out);
		return x->ctype;
	}
	if (n != x) {		/* an inline's use: a copy of its own */
		dt_node_t *next = n->next;
		int line = n->line;
		*n = *clone_tree(cx, x);
		n->next = next;
		n->line = line;
	}
	return xlate_build(cx, n, out);
}
