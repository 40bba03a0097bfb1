/* SPDX-License-Identifier: MIT */
/*
 * dt_compile.h: compiling a D program text.
 */
#ifndef DT_COMPILE_H
#define DT_COMPILE_H

#include "dt_impl.h"
#include "dt_ident.h"

/* How a program text was given: a script (-s), or a command-line probe
 * specifier whose bare single field names a name/provider/module/function
 * (-n, -P, -m, -f; DT_CTX_* of dt_impl.h). */
#define DT_CTX_SCRIPT	(-1)

typedef struct dt_compile_result {
	int nclauses;		/* clauses compiled */
	int nprobes;		/* distinct probes they matched */
	/* Called with the parsed program before its memory goes (for -h and
	 * -G, which need the provider declarations); NULL for none. */
	int (*gen)(dtrace_hdl_t *, const dt_program_ast_t *, void *);
	void *gen_arg;
	void *scratch;		/* internal */
	/* dtrace -v: the least attributes of the probes the clauses
	 * matched, and of their statements */
	dt_attr_t descattr, stmtattr;
} dt_compile_result_t;

/* The attributes of probe p as its provider gives them (dtrace -l -v):
 * its description's name, data and class, then its arguments'; those of
 * a provider that gives none are Evolving/Evolving/Common. */
void dt_probe_attrs(dtrace_probe_t *p, dtrace_stability_t attr[6]);

/* Compile; 0, or -1 with dtp->errmsg and dtp->errtag set. */
int dt_compile(dtrace_hdl_t *dtp, const char *src, size_t len,
	       const char *srcname, int ctx, dt_compile_result_t *res);

void dt_compile_fini(dtrace_hdl_t *dtp);

#endif /* DT_COMPILE_H */
