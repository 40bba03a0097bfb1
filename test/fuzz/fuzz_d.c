/* SPDX-License-Identifier: MIT */
/*
 * fuzz_d.c: the D front end (lexer, parser, checker and code generator;
 * nothing is loaded into the kernel) on arbitrary program text.
 *
 * Each input is a program compiled the way dtrace compiles a script,
 * against one hand-made probe with two arguments (int, char *): any
 * outcome but success or a compile error through dt_pcb_error() (a crash,
 * a sanitizer report, a leak) is a bug.  A fresh session per input, as the
 * compiler's state spans the programs of one session.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dt_bpf.h"
#include "dt_btf.h"
#include "dt_cg_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Larger programs only take longer: the interesting inputs are short. */
#define FUZZ_D_MAX	4096

static void session_open(dtrace_hdl_t *dtp, dtrace_probe_t *prp)
{
	static char prv[] = "fuzz", mod[] = "mod", fun[] = "fun",
		    prb[] = "entry";

	memset(dtp, 0, sizeof(*dtp));
	dtp->types = dt_typetab_create();
	dtp->opt.strsize = 256;
	dtp->opt.bufsize = 1 << 20;
	dtp->opt.aggsize = 1 << 20;
	dtp->opt.nspec = 1;
	dt_bpf_init(dtp);
	memset(prp, 0, sizeof(*prp));
	prp->id = 1;
	prp->prv = prv;
	prp->mod = mod;
	prp->fun = fun;
	prp->prb = prb;
	dt_probe_args_alloc(prp, 2);
	prp->argtypes[0] = dt_type_int(dtp->types, 4, true);
	prp->argtypes[1] = dt_type_ptr(dtp->types,
				       dt_type_int(dtp->types, 1, true));
	prp->args[0].mapping = 0;
	prp->args[1].mapping = 1;
}

static void session_close(dtrace_hdl_t *dtp, dt_compiled_clause_t **ccs,
			  int n)
{
	dtp->clauses = ccs;	/* the session frees its clauses this way */
	dtp->nclauses = n;
	dt_cg_fini(dtp);
	dt_btf_fini(dtp);	/* curthread's type is the kernel's BTF */
	dt_bpf_fini(dtp);
	dt_typetab_destroy(dtp->types);
	for (int i = 0; i < n; i++) {
		dt_as_fini(&ccs[i]->code);
		free(ccs[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static dtrace_hdl_t hdl;
	static dtrace_probe_t probe;
	dt_compiled_clause_t *ccs[8];
	volatile int ncc = 0;
	dtrace_probe_t *probes[1] = { &probe };
	dt_pcb_t pcb;

	if (size > FUZZ_D_MAX)
		return 0;
	char *src = malloc(size + 1);
	if (src == NULL)
		return 0;
	memcpy(src, data, size);
	src[size] = '\0';
	session_open(&hdl, &probe);
	dt_pcb_init(&pcb, &hdl, src, size, "fuzz.d", false);
	if (setjmp(pcb.jb) == 0) {
		dt_parse(&pcb);
		dt_cg_declare(&pcb, pcb.prog);
		for (const dt_clause_ast_t *c = pcb.prog->clauses;
		     c != NULL && ncc < 8; c = c->next) {
			/* counted once returned: an error longjmps out */
			dt_compiled_clause_t *cc = dt_cg_clause(&pcb, c,
								 probes, 1);
			ccs[ncc] = cc;
			ncc++;
		}
	}
	dt_pcb_fini(&pcb);
	session_close(&hdl, ccs, ncc);
	dt_probe_args_alloc(&probe, 0);
	free(src);
	return 0;
}
