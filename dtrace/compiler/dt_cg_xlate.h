/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_xlate.h: the code of the xlate operator (dt_cg_xlate.c); the
 * checker's side is in dt_check.h.
 */
#ifndef DT_CG_XLATE_H
#define DT_CG_XLATE_H

#include "dt_cg_impl.h"

/* Emit: the value of checked xlate node x (an address). */
int dt_xlate_cg(dt_cg_t *cx, dt_node_t *x);

#endif /* DT_CG_XLATE_H */
