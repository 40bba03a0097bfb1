/* SPDX-License-Identifier: MIT */
/*
 * dt_lib.h: D libraries (dt_lib.c): the installed library directory and
 * -L directories, read once per session before its first program.
 */
#ifndef DT_LIB_H
#define DT_LIB_H

#include "dt_impl.h"

/* The installed library directory (what dtrace -V prints). */
const char *dt_lib_default_dir(void);
/* -L dir: read after the installed directory, in the order given. */
void dt_lib_add_dir(dtrace_hdl_t *dtp, const char *dir);
/* Parse the libraries (once per session), before pcb's program is
 * parsed; a library's error fails pcb's compile. */
void dt_lib_parse_all(dt_pcb_t *pcb);
/* Declare their inlines, variables and translators (once per session),
 * after pcb's program's pragmas are applied. */
void dt_lib_declare_all(dt_pcb_t *pcb);
/* The parse tree of the i-th library loaded, NULL past the last. */
const dt_program_ast_t *dt_lib_prog(dtrace_hdl_t *dtp, int i);
/* #pragma D depends_on library name in library pcb: fails with
 * D_PRAGMA_DEPEND unless that library (in pcb's directory) was loaded. */
void dt_lib_depends(dt_pcb_t *pcb, const char *name, int line);
/* Keep the parse tree of pcb's program, compiled, until the session ends
 * when it declares inlines or translators: later programs use them. */
void dt_lib_keep(dt_pcb_t *pcb);
void dt_lib_fini(dtrace_hdl_t *dtp);

#endif /* DT_LIB_H */
