/* SPDX-License-Identifier: MIT */
/*
 * dt_check_impl.h: what the checker's own files share beyond dt_check.h:
 * its error macro, the small tests of types and nodes each part makes,
 * and the entry points across its files (dt_check.c: expressions and
 * statements; dt_check_call.c: subroutine and action calls;
 * dt_check_decl.c: declarations).  Private to the checker.
 */
#ifndef DT_CHECK_IMPL_H
#define DT_CHECK_IMPL_H

#include "dt_check.h"

#define ERR(cx, tag, n, ...) dt_pcb_error((cx)->pcb, tag, (n)->line, __VA_ARGS__)

static inline dt_typetab_t *tt(dt_check_t *cx)
{
	return cx->dtp->types;
}

/* char * and char[] convert to string where a string is expected. */
static inline bool is_char_ptr(const dt_type_t *t)
{
	return (t->kind == DT_TK_PTR || t->kind == DT_TK_ARRAY) &&
	       t->base->kind == DT_TK_INT && t->base->size == 1;
}

/* NULL, or an integer constant 0: what a string may be compared with
 * besides another string. */
static inline bool is_null(const dt_node_t *n)
{
	return n->is_const && n->ival == 0 &&
	       (n->type->kind == DT_TK_PTR || dt_type_is_integer(n->type));
}

static inline void need_scalar(dt_check_t *cx, dt_node_t *n, const char *op)
{
	if (!dt_type_is_scalar(n->type))
		ERR(cx, D_OP_SCALAR, n, "operator %s requires an operand of "
		    "scalar type", op);
}

static inline dt_ident_t *lookup_var(dt_check_t *cx, dt_identkind_t kind,
			      const char *name)
{
	return dt_idtab_lookup(cx->idents, kind, name);
}

static inline int count_args(const dt_node_t *a)
{
	int k = 0;
	for (; a != NULL; a = a->next)
		k++;
	return k;
}

/* The checker's own entry points across its files: hidden from plugins,
 * which would otherwise meet these short names in the dtrace executable
 * (it is linked -rdynamic). */
#pragma GCC visibility push(hidden)

/* A call in an expression: a subroutine (dt_check_call.c); its type. */
dt_type_t *check_call(dt_check_t *cx, dt_node_t *n);
/* An action or aggregating function used as a value: refused (D_CG_EXPR). */
void dt_check_action_values(dt_check_t *cx);
/* A call of an action, a statement of its own (dt_check_call.c). */
void check_action(dt_check_t *cx, dt_node_t *n, const dt_funcinfo_t *fi);

#pragma GCC visibility pop

#endif /* DT_CHECK_IMPL_H */
