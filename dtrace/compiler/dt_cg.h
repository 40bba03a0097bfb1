/* SPDX-License-Identifier: MIT */
/*
 * dt_cg.h: the code generator.
 *
 * dt_cg_clause() has the checker (dt_check.h) type-check one clause
 * against the probes its descriptions matched and compiles what it
 * checked into a BPF function:
 *
 *	int clause(struct pt_regs *ctx, dt_mstate_t *mst)
 *
 * returning 0, or 1 after a run-time fault whose details it stored in
 * mst->fault* (dt_runtime.h).  The function writes the clause's record to
 * the "output" ring buffer itself (header from mst->pub.prid and
 * mst->pub.clause), counting a full buffer in cpuinfo.buf_drops.
 *
 * What it produces is the program description (dt_progdesc.h): the
 * clauses, the aggregation table and the formats.  State of its own that
 * spans clauses and compiles (the identifier table the checker declares
 * in, the variables' storage and maps, the string table, the layout of
 * the mstate's code generator area) lives in dtp->cg.
 */
#ifndef DT_CG_H
#define DT_CG_H

#include "dt_progdesc.h"

struct dt_cg_state;

/* Check and compile clause c; errors go through dt_pcb_error(). */
dt_compiled_clause_t *dt_cg_clause(dt_pcb_t *pcb, const dt_clause_ast_t *c,
				   dtrace_probe_t **probes, int nprobes);
/* Free a clause that dt_cg_clause() compiled and that is not kept (a D
 * library's, which DTrace compiles and discards). */
void dt_cg_clause_free(dt_compiled_clause_t *cc);
/* Declarations and inlines of a parsed program, before its clauses:
 * checked, then given their storage. */
void dt_cg_declare(dt_pcb_t *pcb, const dt_program_ast_t *prog);
/* Size of the mstate value including the code generator's area. */
uint32_t dt_cg_mstate_size(dtrace_hdl_t *dtp);
/* Whether what the clauses record fits bufsize, and one entry of each
 * aggregation aggsize; -1 with DTrace's message when not. */
int dt_cg_check_space(dtrace_hdl_t *dtp);
/* Whether destructive actions, if any, are permitted (-w): DTrace compiles
 * them and refuses the enabling.  0, or -1 with DTrace's message. */
int dt_cg_check_destructive(dtrace_hdl_t *dtp);
/* Write initial map contents (string table, globals) once the maps exist. */
int dt_cg_maps_init(dtrace_hdl_t *dtp);
void dt_cg_fini(dtrace_hdl_t *dtp);

#endif /* DT_CG_H */
