/* SPDX-License-Identifier: MIT */
/*
 * dt_check_decl.c: the checker of a program's declarations: its inlines
 * (a constant integer one becomes a constant, any other an expression
 * expanded where it is used) and its variables, declared in the session's
 * table before any clause is checked.  A variable declared again, in the
 * program or against the session's variable of that name, must be
 * declared the same way (dt_decl_redeclared(), which the parser also
 * asks).  Translators are declared by dt_check_xlate.c.
 */
#include <string.h>

#include "dt_check_impl.h"


static bool same_type(const dt_type_t *a, const dt_type_t *b)
{
	return a == b || strcmp(a->name, b->name) == 0;
}

static const char *var_kind(int nkeys)
{
	return nkeys >= 0 ? "associative array" : "scalar";
}

void dt_decl_redeclared(dt_pcb_t *pcb, const dt_vardecl_t *now,
			const dt_type_t *type, int nkeys,
			dt_type_t *const *keys)
{
	const char *name = now->name;
	int k;

	if ((now->nkeys >= 0) != (nkeys >= 0) || !same_type(now->type, type))
		dt_pcb_error(pcb, D_DECL_IDRED, now->line, "identifier "
			     "redeclared: %s\n\t current: %s %s\n\tprevious: "
			     "%s %s", name, var_kind(now->nkeys),
			     now->type->name, var_kind(nkeys), type->name);
	for (k = 0; k < now->nkeys && k < nkeys; k++)
		if (!same_type(now->keys[k], keys[k]))
			dt_pcb_error(pcb, D_DECL_IDRED, now->line, "identifier "
				     "redeclared: %s\n\t current: %s, key #%d "
				     "of type %s\n\tprevious: %s, key #%d of "
				     "type %s", name, var_kind(nkeys), k + 1,
				     now->keys[k]->name, var_kind(nkeys),
				     k + 1, keys[k]->name);
	if (now->nkeys != nkeys)
		dt_pcb_error(pcb, D_DECL_IDRED, now->line, "identifier "
			     "redeclared: %s\n\t current: %s of %s, tuple "
			     "length %d\n\tprevious: %s of %s, tuple length "
			     "%d", name, var_kind(nkeys), now->type->name,
			     now->nkeys, var_kind(nkeys), type->name, nkeys);
}

/* A name D gives a variable or function of its own (pid, trace...): a
 * global may not take it, as in DTrace; self-> and this-> may. */
static bool is_builtin(const char *name)
{
	dt_bvar_t bv;
	int argn;

	return dt_bvar_lookup(name, &bv, &argn) || dt_func_lookup(name) != NULL;
}

static void declare_var(dt_check_t *cx, dt_vardecl_t *v)
{
	static const dt_identkind_t kinds[] = {
		[DT_VC_GLOBAL] = DT_IK_GLOBAL, [DT_VC_SELF] = DT_IK_SELF,
		[DT_VC_THIS] = DT_IK_THIS,
	};
	dt_identkind_t kind = kinds[v->vclass];
	dt_type_t *t = v->type;

	if (t->kind == DT_TK_ARRAY && t->base->kind == DT_TK_INT &&
	    t->base->size == 1)
		t = dt_type_string(cx->dtp->types);
	if (!dt_type_in_register(t) && t->kind != DT_TK_STRING &&
	    !(dt_sou_type(t) && t->size > 0))
		dt_pcb_error(cx->pcb, D_DECL_INCOMPLETE, v->line, "incomplete "
			     "struct/union/enum %s: %s", t->name, v->name);
	if (kind == DT_IK_GLOBAL && is_builtin(v->name))
		dt_pcb_error(cx->pcb, D_DECL_IDRED, v->line, "built-in "
			     "identifier redeclared: %s", v->name);
	dt_ident_t *id = lookup_var(cx, kind, v->name);
	if (id != NULL) {
		dt_vardecl_t now = *v;

		now.type = t;
		dt_decl_redeclared(cx->pcb, &now, id->type, id->nkeys,
				   id->keys);
		return;
	}
	if (kind == DT_IK_THIS && v->nkeys >= 0)
		dt_pcb_error(cx->pcb, D_DECL_LOCASSC, v->line, "associative "
			     "arrays may not be declared as local variables: "
			     "%s", v->name);
	dt_check_declare_var(cx, kind, v->name, t, v->nkeys, v->keys,
			     v->line);
}

static void declare_inline(dt_check_t *cx, dt_inline_t *in)
{
	dt_type_t *t = dt_check_expr(cx, in->expr);

	if (in->type != NULL && !dt_check_assignable(in->type, in->expr))
		dt_pcb_error(cx->pcb, D_OP_INCOMPAT, in->line, "inline %s "
			     "definition uses incompatible types: \"%s\" = "
			     "\"%s\"", in->name, in->type->name, t->name);
	dt_ident_t *id = dt_zalloc(sizeof(*id));
	id->name = dt_strdup(in->name);
	id->type = in->type ? in->type : t;
	id->nkeys = -1;
	id->line = in->line;
	if (in->expr->is_const && dt_type_is_integer(id->type)) {
		id->kind = DT_IK_CONST;
		id->value = (int64_t)in->expr->ival;
	} else {
		id->kind = DT_IK_INLINE;
		id->expr = in->expr;	/* lives as long as the compile */
	}
	dt_idtab_add(cx->idents, id);
}

void dt_check_declare(dt_check_t *cx, const dt_program_ast_t *prog)
{
	for (dt_inline_t *in = prog->inlines; in != NULL; in = in->next)
		declare_inline(cx, in);
	for (dt_vardecl_t *v = prog->vars; v != NULL; v = v->next)
		declare_var(cx, v);
	dt_xlate_declare(cx, prog);
}
