/* SPDX-License-Identifier: MIT */
/*
 * dt_instance.h: a process's own probes of DTRACE_PROBE_TEMPLATE probes,
 * made at run time by the programs (dt_instance.c).
 */
#ifndef DT_INSTANCE_H
#define DT_INSTANCE_H

#include "dt_impl.h"
#include "dt_as.h"


/* Declare the maps (before they are created; dtp->inst_base set). */
int dt_inst_maps_declare(dtrace_hdl_t *dtp);
/* Emit the subprogram at label: r0 = inst_overlay(r1 mstate, r2 the
 * (0, cookie) overlay value), the (pid, cookie) overlay made from it, or
 * 0 (the firing then runs under the templates). */
void dt_inst_emit(dtrace_hdl_t *dtp, dt_as_t *as, int label);
/* Put the probes the programs made since the last call in the table. */
void dt_inst_import(dtrace_hdl_t *dtp);

#endif /* DT_INSTANCE_H */
