/* SPDX-License-Identifier: MIT */
/*
 * dt_compile.c: from the text of a D program to compiled clauses.
 *
 * One call per program text (each -n, -P, ..., each -s script): run the
 * preprocessor when asked, parse, apply the program's pragmas, declare its
 * variables, then for each clause match its probe descriptions and compile
 * it.  Errors anywhere end in dt_pcb_error(), which unwinds to the one catch
 * point here; the pcb's arena is freed on every path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_compile.h"
#include "dt_dwarf.h"
#include "dt_cg.h"
#include "dt_lib.h"
#include "dt_options.h"

/* The probes a clause matches.  A compile error longjmps out of the
 * matching: the array is kept in *owner (the result's scratch, freed at
 * the catch point) each time it moves, so that it never leaks. */
typedef struct match_acc {
	dtrace_probe_t **probes;
	int n, cap;
	int matched;	/* the probes each description matched, summed */
	void **owner;
} match_acc_t;

/* Every probe matched, duplicates included: acc_dedup() drops them once
 * all descriptions are matched (a search here per probe made listing a
 * provider of 100,000 probes quadratic). */
static int collect_probe(dtrace_hdl_t *dtp, dtrace_probe_t *prp, void *arg)
{
	match_acc_t *acc = arg;

	(void)dtp;
	dt_array_room(acc->probes, acc->n, acc->cap);
	*acc->owner = acc->probes;
	acc->probes[acc->n++] = prp;
	return 0;
}

/* A probe and where it was matched first, to sort by probe. */
typedef struct match_pos {
	uintptr_t probe;
	int pos;
} match_pos_t;

static int match_pos_cmp(const void *a, const void *b)
{
	const match_pos_t *x = a, *y = b;

	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	return x->pos - y->pos;
}

/* Each probe once, where it was matched first, in O(n log n). */
static void acc_dedup(match_acc_t *acc)
{
	if (acc->n < 2)
		return;
	match_pos_t *v = dt_zalloc(acc->n * sizeof(*v));
	bool *dup = dt_zalloc(acc->n * sizeof(*dup));
	for (int i = 0; i < acc->n; i++)
		v[i] = (match_pos_t){ (uintptr_t)acc->probes[i], i };
	qsort(v, acc->n, sizeof(*v), match_pos_cmp);
	for (int i = 1; i < acc->n; i++)
		dup[v[i].pos] = v[i].probe == v[i - 1].probe;
	int n = 0;
	for (int i = 0; i < acc->n; i++)
		if (!dup[i])
			acc->probes[n++] = acc->probes[i];
	acc->n = n;
	free(dup);
	free(v);
}

/* The probes the clause's descriptions match; a description that matches
 * nothing is an error unless -Z. */
static void match_clause(dt_pcb_t *pcb, const dt_clause_ast_t *c,
			 match_acc_t *acc)
{
	dtrace_hdl_t *dtp = pcb->dtp;

	for (const dt_pdesc_t *d = c->pdescs; d; d = d->next) {
		dtrace_probedesc_t pd = { d->prv, d->mod, d->fun, d->prb };
		dtp->errmsg[0] = '\0';
		dtp->desc_errtag = D_UNKNOWN;
		int n = dt_probe_iter(dtp, &pd, collect_probe, acc);
		if (n > 0)
			acc->matched += n;
		if (n < 0) {
			char msg[sizeof(dtp->errmsg)];
			snprintf(msg, sizeof(msg), "%s", dtp->errmsg);
			dt_pcb_error(pcb, dtp->desc_errtag != D_UNKNOWN ?
				     (dt_errtag_t)dtp->desc_errtag :
				     D_PDESC_INVAL, d->line, "%s", msg);
		}
		if (n == 0 && dtp->opt.list && !pcb->library) {
			/* -l says it as DTrace does, -Z or not, and goes
			 * on listing the other descriptions: not an
			 * error.  A
			 * library's clause is named by its file and line,
			 * below */
			dt_warn(dtp, "failed to match %s:%s:%s:%s: No probe "
				"matches description", d->prv, d->mod, d->fun,
				d->prb);
			continue;
		}
		if (n == 0 && !dtp->opt.zdefs)
			dt_pcb_error(pcb, D_PDESC_ZERO, d->line,
				     "probe description %s:%s:%s:%s does not "
				     "match any probes", d->prv, d->mod, d->fun,
				     d->prb);
	}
}

/* Keep the clause's descriptions beyond the compile: probes that appear
 * while tracing (a library loaded later) are matched against them. */
static void keep_descs(dtrace_hdl_t *dtp, int id, const dt_clause_ast_t *c)
{
	int n = 0;

	for (const dt_pdesc_t *d = c->pdescs; d; d = d->next)
		n++;
	dtrace_probedesc_t *v = dt_zalloc(n * sizeof(*v));
	n = 0;
	for (const dt_pdesc_t *d = c->pdescs; d; d = d->next, n++)
		v[n] = (dtrace_probedesc_t){ dt_strdup(d->prv),
			dt_strdup(d->mod), dt_strdup(d->fun), dt_strdup(d->prb) };
	dtp->clause_descs = dt_realloc(dtp->clause_descs,
				       (id + 1) * sizeof(*dtp->clause_descs));
	dtp->clause_ndescs = dt_realloc(dtp->clause_ndescs,
					(id + 1) * sizeof(*dtp->clause_ndescs));
	dtp->clause_descs[id] = v;
	dtp->clause_ndescs[id] = n;
}

void dt_compile_fini(dtrace_hdl_t *dtp)
{
	for (int i = 0; i < dtp->nclauses && dtp->clause_descs; i++) {
		for (int j = 0; j < dtp->clause_ndescs[i]; j++) {
			dtrace_probedesc_t *d = &dtp->clause_descs[i][j];
			free((char *)d->prv);
			free((char *)d->mod);
			free((char *)d->fun);
			free((char *)d->prb);
		}
		free(dtp->clause_descs[i]);
	}
	free(dtp->clause_descs);
	free(dtp->clause_ndescs);
	dtp->clause_descs = NULL;
	dtp->clause_ndescs = NULL;
}

/* Match c's descriptions and compile it against the probes found, which
 * stay in res->scratch until the next clause. */
static dt_compiled_clause_t *match_and_compile(dt_pcb_t *pcb,
					       const dt_clause_ast_t *c,
					       dt_compile_result_t *res,
					       match_acc_t *acc)
{
	free(res->scratch);	/* the previous clause's probes */
	res->scratch = NULL;
	*acc = (match_acc_t){ .owner = &res->scratch };
	match_clause(pcb, c, acc);
	acc_dedup(acc);
	for (int i = 0; i < acc->n; i++)
		dt_probe_args(pcb->dtp, acc->probes[i]);
	return dt_cg_clause(pcb, c, acc->probes, acc->n);
}

void dt_probe_attrs(dtrace_probe_t *p, dtrace_stability_t attr[6])
{
	for (int i = 0; i < 6; i++)
		attr[i] = DTRACE_STABILITY_EVOLVING;
	attr[2] = attr[5] = (dtrace_stability_t)DT_CLASS_COMMON;
	if (p->provider->ops->probe_stability)
		p->provider->ops->probe_stability(p->provider,
						  p->provider->data, p, attr);
}

static dt_attr_t attr_at(const dtrace_stability_t *a)
{
	return (dt_attr_t){ a[0], a[1], (dt_depclass_t)a[2] };
}

/* Clause c's attributes as DTrace computes them for dtrace -v: its
 * probes' description attributes (Unstable/Unstable/Common when it
 * matched none), and its statements' (the probes' argument attributes
 * where it names args[ ]), folded into res's. */
static void clause_attrs(const dt_clause_ast_t *c, const match_acc_t *acc,
			 dt_compile_result_t *res)
{
	static const dt_attr_t unmatched = {
		DTRACE_STABILITY_UNSTABLE, DTRACE_STABILITY_UNSTABLE,
		DT_CLASS_COMMON,
	};
	dt_attr_t desc = acc->n == 0 ? unmatched : dt_attr_max, args;
	dtrace_stability_t a[6];
	bool uses_args;
	dt_attr_t stmt = dt_clause_attr(c, &uses_args);

	args = dt_attr_max;
	for (int i = 0; i < acc->n; i++) {
		dt_probe_attrs(acc->probes[i], a);
		desc = dt_attr_min(desc, attr_at(a));
		args = dt_attr_min(args, attr_at(a + 3));
	}
	if (uses_args)
		stmt = dt_attr_min(stmt, args);
	res->descattr = dt_attr_min(res->descattr, desc);
	res->stmtattr = dt_attr_min(res->stmtattr, stmt);
}

static void compile_clause(dt_pcb_t *pcb, const dt_clause_ast_t *c,
			   dt_compile_result_t *res)
{
	dtrace_hdl_t *dtp = pcb->dtp;
	match_acc_t acc;
	dt_compiled_clause_t *cc = match_and_compile(pcb, c, res, &acc);

	dt_pd_clause_add(dtp, cc);
	clause_attrs(c, &acc, res);

	keep_descs(dtp, cc->id, c);
	/* "matched N probes" counts as DTrace does, each description's
	 * probes: BEGIN {} BEGIN {} matched 2. */
	res->nprobes += acc.matched;
	for (int i = 0; i < acc.n; i++) {
		dtrace_probe_t *p = acc.probes[i];
		dt_cs_add(&p->clauses, cc->id);
		if (p->id == DT_PRID_ERROR)
			dtp->error_probe = p;
	}
}

/* The declarations of the D libraries not declared yet, after the first
 * program's pragmas (the code generator's layout is fixed at its first
 * use); an error in one fails pcb's compile, naming the library.  A
 * library's clauses are compiled against the probes they match, as
 * DTrace compiles them, and discarded: they never run. */
static void declare_libs(dt_pcb_t *pcb, dt_compile_result_t *res)
{
	dt_pcb_t *lp;
	match_acc_t acc;

	while ((lp = dt_lib_next_undeclared(pcb->dtp)) != NULL) {
		if (setjmp(lp->jb) != 0)
			dt_pcb_error_wrap(pcb);
		dt_cg_declare(lp, lp->prog);
		for (const dt_clause_ast_t *c = lp->prog->clauses; c != NULL;
		     c = c->next)
			dt_cg_clause_free(match_and_compile(lp, c, res, &acc));
	}
}

int dt_compile(dtrace_hdl_t *dtp, const char *src, size_t len,
	       const char *srcname, int ctx, dt_compile_result_t *res)
{
	dt_pcb_t pcb;
	char *cppout = NULL;
	size_t cpplen = 0;

	res->nclauses = res->nprobes = 0;
	res->scratch = NULL;
	res->descattr = res->stmtattr = dt_attr_max;
	dtp->ncompiles++;
	if (dtp->opt.cpp) {
		if (dt_cpp_run(dtp, src, len, &cppout, &cpplen) < 0) {
			if (dtp->errmsg[0] == '\0')
				dt_set_error(dtp, "failed to preprocess %s",
					     srcname ? srcname : "program");
			dtp->errtag = D_CPP;
			return -1;
		}
		src = cppout;
		len = cpplen;
	}

	if (dtp->ncompiles == 1)
		dt_dwarf_target_types(dtp);	/* the target's C types */
	dt_pcb_init(&pcb, dtp, src, len, srcname, ctx != DT_CTX_SCRIPT);
	if (ctx != DT_CTX_SCRIPT)
		pcb.default_ctx = ctx;
	if (setjmp(pcb.jb) != 0) {
		dt_pcb_fini(&pcb);
		free(cppout);
		free(res->scratch);
		res->scratch = NULL;
		return -1;
	}

	dt_lib_parse_all(&pcb, dt_opt_apply_pragmas);	/* their options */
	dt_parse(&pcb);
	dt_opt_apply_pragmas(&pcb);
	declare_libs(&pcb, res);
	dt_cg_declare(&pcb, pcb.prog);
	for (const dt_clause_ast_t *c = pcb.prog->clauses; c; c = c->next) {
		compile_clause(&pcb, c, res);
		res->nclauses++;
	}
	if (res->gen != NULL && res->gen(dtp, pcb.prog, res->gen_arg) < 0) {
		dt_pcb_fini(&pcb);
		free(cppout);
		free(res->scratch);
		res->scratch = NULL;
		return -1;
	}
	dt_lib_keep(&pcb);	/* its inlines and translators stay */
	dt_pcb_fini(&pcb);
	free(cppout);
	free(res->scratch);
	res->scratch = NULL;
	return 0;
}
