/* SPDX-License-Identifier: MIT */
/*
 * dt_options.h: options (-x, #pragma D option).
 */
#ifndef DT_OPTIONS_H
#define DT_OPTIONS_H

#include "dt_impl.h"

void dt_opt_defaults(dt_options_t *o);
/* Free what the options hold that dt_main.c does not. */
void dt_opt_fini(dt_options_t *o);
/* Set one option; val NULL when none was given.  0, or -1 with the error
 * set ("failed to set option -x name: ..."). */
int dt_opt_set(dtrace_hdl_t *dtp, const char *name, const char *val);
/* An argument of the preprocessor (-D, -U, -I, -H): flag then val. */
void dt_opt_add_cpp_arg(dtrace_hdl_t *dtp, const char *flag, const char *val);
/* "name[=value]" as -x takes it. */
int dt_opt_set_arg(dtrace_hdl_t *dtp, const char *arg);
/* dtrace -x help: the options' names, the plugins' with their help. */
void dt_opt_list(dtrace_hdl_t *dtp, FILE *fp);
/* Apply the #pragma D option lines of pcb's parsed program (a script's,
 * or a D library's); a refusal is a compile error of pcb. */
void dt_opt_apply_pragmas(dt_pcb_t *pcb);

#endif /* DT_OPTIONS_H */
