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
 * parsed, calling parsed with each library's pcb once parsed (its errors
 * are the library's); a library's error fails pcb's compile. */
void dt_lib_parse_all(dt_pcb_t *pcb, void (*parsed)(dt_pcb_t *));
/* The next library whose declarations were not made yet (in loading
 * order; each is handed out once), or NULL.  Its errors land at its own
 * pcb's catch point. */
dt_pcb_t *dt_lib_next_undeclared(dtrace_hdl_t *dtp);
/* Keep the parse tree of pcb's program, compiled, until the session ends
 * when it declares inlines or translators: later programs use them. */
void dt_lib_keep(dt_pcb_t *pcb);
void dt_lib_fini(dtrace_hdl_t *dtp);

#endif /* DT_LIB_H */
