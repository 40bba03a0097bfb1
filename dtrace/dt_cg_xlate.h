/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_xlate.h: translators (`translator`) and the xlate operator, between
 * the checker and dt_cg_xlate.c.
 */
#ifndef DT_CG_XLATE_H
#define DT_CG_XLATE_H

#include "dt_cg_impl.h"

/* Check the translators a program declares (redeclarations, the types of
 * their members); errors through dt_pcb_error(). */
void dt_xlate_declare(dt_cg_t *cx, const dt_program_ast_t *prog);
/* The xlate node of operand n: n itself, or the definition of the inline
 * n names; NULL when n is neither. */
dt_node_t *dt_xlate_operand(dt_cg_t *cx, const dt_node_t *n);
/* n is x.m or x->m, x an xlate <T> (e): rewrite n into the translator's
 * expression for m, checked; its type. */
dt_type_t *dt_xlate_member(dt_cg_t *cx, dt_node_t *n, dt_node_t *x);
/* n uses xlate x as a value (x is n, or an inline's definition): the
 * struct, or a pointer to it, built where the expression runs; in an
 * inline's definition, only its type. */
dt_type_t *dt_xlate_value(dt_cg_t *cx, dt_node_t *n, dt_node_t *x);
/* Emit: the value of checked xlate node x (an address). */
int dt_xlate_cg(dt_cg_t *cx, dt_node_t *x);

#endif /* DT_CG_XLATE_H */
