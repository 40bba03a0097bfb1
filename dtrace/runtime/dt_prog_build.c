/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_build.c: which program serves which underlying probe,
 * and one program put together.
 *
 * Underlying probes of the same users (trampolines) and flags share one
 * program (dt_kprog_find()); each program calls the clauses of the
 * overlays on its probes and those its providers may need for probes made
 * while tracing (dt_late_clauses_add()).  dt_prog_build() emits a program:
 * prefilter, prologue, trampoline, fast path, overlay lookup, dispatch or
 * chain, epilogue, subprograms (dt_prog_emit.c).
 */
#include <stdlib.h>
#include <string.h>

#include "dt_prog_impl.h"
#include "dt_instance.h"
#include "dt_kevent.h"
#include "dt_opt.h"

/* dt_prog_build() with the sets of clauses called and needed (those and the
 * ERROR clauses), each with its label; pf: an empty emitter, for the
 * prefilter. */
static int prog_emit_with(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			  const dt_clauseset_t *clauses,
			  const dt_clauseset_t *needed,
			  const int *clause_labels, dt_as_t *pf)
{
	dt_as_t *as = &kp->as;
	int out = dt_as_label(as), error_label = dt_as_label(as);
	dt_stage_t stop = dt_bench_stop(kp->flags);
	int inst = -1;	/* label of the code making process probes */
	int tramps[DT_SITE_USERS];	/* per-entry trampolines (shared site) */
	bool loop = dt_bpf_features(dtp)->loop;
	int callback = dt_as_label(as);

	for (uint32_t i = 0; i < DT_SITE_USERS; i++)
		tramps[i] = kp->nusers > 1 && i < kp->nusers &&
			    kp->chain == NULL && stop >= DT_STAGE_DISPATCH ?
			    dt_as_label(as) : -1;

	/* The prefilter runs inline, else as the program's first
	 * subprogram, at label prefilter. */
	int prefilter = -1, spare = -1;
	if (stop == DT_STAGE_ALL && dt_prefilter_fits(dtp, kp, clauses)) {
		if (dt_prefilter_build(dtp, kp, clauses, pf) < 0)
			return -1;
		spare = dt_prefilter_inline_reg(pf);
		if (spare < 0)
			prefilter = dt_as_label(as);
	}

	if (stop == DT_STAGE_EMPTY)
		goto leave;
	if (spare >= 0) {
		/*
		 * The full path, a function of its own that the entry calls
		 * when a predicate holds: the entry then saves no register
		 * and makes no frame where the prefilter needs neither (a pid
		 * probe's), and a filtered firing runs the prefilter's
		 * instructions and returns, as an empty program would.
		 */
		bool split = !getenv("DTRACE_BENCH_NOSPLIT");
		int full = dt_as_label(as), keep = spare;

		if (split && dt_opt_caller_saved_all(pf, &keep))
			spare = keep;
		dt_opt_inline_at_entry(as, pf, spare);
		if (split) {
			dt_as_call(as, full);
			EMIT(as, DT_EXIT());
			dt_as_place(as, full);
		}
	}
	if (prefilter >= 0) {
		EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
		dt_as_call(as, prefilter);
		/* Returning here, not at out after the program's body, keeps
		 * a filtered firing on the program's first page of code. */
		int run = dt_as_label(as);
		dt_as_jump(as, BPF_JNE, DT_R0, 0, run);
		EMIT(as, DT_EXIT());
		dt_as_place(as, run);
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	}
	dt_key_insns_t key = dt_emit_prologue(dtp, as, kp->flags,
					      dt_kp_cookie(kp),
					      dt_kp_has_regs(kp), out, stop);
	if (stop < DT_STAGE_TRAMPOLINE)
		goto leave;
	int skip = dt_as_label(as);
	const dt_site_user_t *first = dt_kp_first_user(kp);
	int tskip = kp->nusers > 1 ? dt_as_label(as) : skip;
	uint32_t tramp = as->ninsns;
	if (first != NULL && dt_emit_trampoline(dtp, kp, first, as, tskip) < 0)
		return -1;
	/* Only the overlay's lookup reads key.pid after a trampoline that
	 * does not: the straight-line dispatch (dt_emit_fast_dispatch()) goes
	 * without it, and its helper call. */
	bool pid_late = !(dt_firing_key_used(as, tramp, as->ninsns, true) &
			  DT_KEY_PID);
	if (pid_late)
		dt_opt_nop(as, key.pid, key.cookie);
	if (tskip != skip)
		dt_as_place(as, tskip);
	if (first != NULL && first->pv->templates && dtp->inst_base)
		inst = dt_as_label(as);
	int generic = dt_as_label(as);
	/* A template probe's process probes are made while tracing, in BPF:
	 * such a program always looks its overlay up; one of a shared site
	 * runs the trampoline of each entry. */
	uint32_t prid = stop == DT_STAGE_ALL && inst < 0 && kp->nusers <= 1 &&
			kp->chain == NULL
				? dt_fast_prid(dtp, dt_progset_of(dtp), kp) : 0;
	if (prid != 0)
		dt_emit_fast_dispatch(dtp, as, prid, clause_labels, error_label,
				      generic, skip);
	dt_as_place(as, generic);
	if (pid_late)
		dt_emit_key_pid(as);
	if (stop >= DT_STAGE_OVERLAY)
		dt_emit_overlay_lookup(dtp, as, skip, inst);
	if (kp->chain != NULL)
		dt_emit_chain_enter(as, kp->chain);
	else if (stop >= DT_STAGE_DISPATCH && loop)
		dt_emit_dispatch_loop(as, callback);
	else if (stop >= DT_STAGE_DISPATCH)
		dt_emit_dispatch(dtp, as, clauses, clause_labels, error_label,
				 tramps);
	dt_as_place(as, skip);
	dt_emit_epilogue(dtp, as, kp->flags);
leave:
	dt_as_place(as, out);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
	/* The first subprogram, on the pages of the program's entry. */
	if (prefilter >= 0) {
		dt_as_place(as, prefilter);
		dt_as_append(as, pf);
	}

	if (stop >= DT_STAGE_DISPATCH && loop && kp->chain == NULL)
		dt_emit_dispatch_callback(dtp, as, clauses, clause_labels,
					  error_label, callback, tramps);
	if (inst >= 0)
		dt_inst_emit(dtp, as, inst);
	for (uint32_t i = 0; i < DT_SITE_USERS && tramps[i] >= 0; i++)
		if (dt_emit_trampoline_sub(dtp, kp, as, i, tramps[i]) < 0)
			return -1;
	dt_emit_subprograms(dtp, as, needed, error_label, clause_labels);
	/* The trampolines' functions of rarely run code, last. */
	if (dt_kp_finish(dtp, kp, as, "program") < 0)
		return -1;
	return 0;
}

static int prog_emit(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		     const dt_clauseset_t *clauses,
		     const dt_clauseset_t *needed, const int *clause_labels)
{
	dt_as_t pf;

	dt_as_init(&pf);
	int rc = prog_emit_with(dtp, kp, clauses, needed, clause_labels, &pf);
	dt_as_fini(&pf);
	return rc;
}

/* Build the program of kp into kp->as.  Returns 0 or -1. */
int dt_prog_build(dtrace_hdl_t *dtp, dt_kprog_t *kp)
{
	dt_clauseset_t clauses = { 0 }, needed = { 0 };

	if (dt_bench_stop(kp->flags) == DT_STAGE_ALL)
		dt_cs_copy(&clauses, &kp->clauses);
	dt_cs_copy(&needed, &clauses);
	if (dtp->error_probe && !dt_cs_empty(&clauses))
		dt_cs_or(&needed, &dtp->error_probe->clauses);
	dt_chain_free(kp);
	if (!dt_cs_empty(&clauses) &&
	    dt_set_subprogs(dtp, &needed) > DT_CHAIN_SUBPROGS) {
		if (dt_chain_build(dtp, kp, &clauses) < 0) {
			dt_cs_free(&clauses);
			dt_cs_free(&needed);
			return -1;
		}
		dt_cs_free(&clauses);	/* the chain's parts call them */
		dt_cs_free(&needed);
	}
	int *clause_labels = dt_zalloc((dtp->nclauses + 1) *
				       sizeof(*clause_labels));
	for (int c = 0; c < dtp->nclauses; c++)
		clause_labels[c] = dt_cs_has(&needed, c) ? dt_as_label(&kp->as)
							 : -1;
	int rc = prog_emit(dtp, kp, &clauses, &needed, clause_labels);
	free(clause_labels);
	dt_cs_free(&clauses);
	dt_cs_free(&needed);
	return rc;
}

/* Whether kp's trampolines are u's users. */
static bool same_users(const dt_kprog_t *kp, const dt_uprobe_ent_t *u)
{
	if (kp->nusers != u->nusers)
		return false;
	for (uint32_t i = 0; i < u->nusers; i++)
		if (kp->users[i].pv != u->users[i].pv ||
		    kp->users[i].kind != u->users[i].kind)
			return false;
	return true;
}

/* Whether program i is one of u's (users, flags).  A program of one
 * underlying probe (fixed_cookie) is no other's. */
bool dt_kprog_fits(const struct dt_progset *ps, int i,
		   const dt_uprobe_ent_t *u)
{
	const dt_kprog_t *kp = &ps->progs[i];
	unsigned f = u->flags & DT_PROG_FLAGS;
	bool own = kp->fixed_cookie == 0 ? !dt_kevent_per_probe(u->kev)
					 : kp->fixed_cookie == u - ps->ups + 1;

	return own && same_users(kp, u) && kp->flags == f &&
	       kp->perf == u->perf &&
	       kp->tracepoint == dt_ent_is_tracepoint(u) &&
	       kp->kev == u->kev;
}

/* The program of u's (users, flags), or -1. */
int dt_kprog_lookup(const struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	for (int i = 0; i < ps->nprogs; i++)
		if (dt_kprog_fits(ps, i, u))
			return i;
	return -1;
}

/* A new program of u's (users, flags), with no clause yet. */
int dt_kprog_new(struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	unsigned f = u->flags & DT_PROG_FLAGS;

	ps->progs = dt_realloc(ps->progs, (ps->nprogs + 1) * sizeof(*ps->progs));
	dt_kprog_t *kp = &ps->progs[ps->nprogs];
	memset(kp, 0, sizeof(*kp));
	kp->pv = u->pv;
	kp->kind = u->kind;
	memcpy(kp->users, u->users, sizeof(kp->users));
	kp->nusers = u->nusers;
	kp->flags = f;
	kp->perf = u->perf;
	kp->tracepoint = dt_ent_is_tracepoint(u);
	kp->kev = u->kev;
	kp->fixed_cookie = dt_kevent_per_probe(u->kev) ? u - ps->ups + 1 : 0;
	kp->kname = u->kev ? u->path : NULL;
	kp->fd = -1;
	dt_as_init(&kp->as);
	return ps->nprogs++;
}

/* The program of u's (users, flags), made if there is none. */
int dt_kprog_find(struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	int i = dt_kprog_lookup(ps, u);

	return i >= 0 ? i : dt_kprog_new(ps, u);
}

/* Add the clauses of the probes of overlay o to set. */
static void overlay_clauses(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o,
			    dt_clauseset_t *set)
{
	for (uint32_t i = 0; i < o->n; i++) {
		const dtrace_probe_t *p = dt_probe_by_id(dtp, o->prids[i]);

		if (p != NULL)
			dt_cs_or(set, &p->clauses);
	}
}

/* Whether pv declares provider name prv as it is (not by a pattern). */
static bool names_literally(const dt_provider_t *pv, const char *prv)
{
	const char *const *n = pv->ops->names ? pv->ops->names : &pv->ops->name;

	for (; *n; n++)
		if (!dt_glob_has_meta(*n) && strcmp(*n, prv) == 0)
			return true;
	return false;
}

/* Whether pv may serve probes of provider prv: a pattern perhaps; a name
 * if pv's names match it and no other plugin has it as its own (the
 * rule of dt_provider.c's may_create()). */
static bool may_serve(dtrace_hdl_t *dtp, const dt_provider_t *pv,
		      const char *prv)
{
	const char *const *n = pv->ops->names ? pv->ops->names : &pv->ops->name;
	bool declared = false;

	if (prv == NULL || prv[0] == '\0' || dt_glob_has_meta(prv))
		return true;
	for (; *n && !declared; n++)
		declared = dt_glob_match(*n, prv);
	for (const dt_provider_t *o = dtp->providers; declared && o;
	     o = o->next)
		if (o != pv && names_literally(o, prv))
			return false;
	return declared;
}

/*
 * The clauses a program of pv may need for probes made while tracing: those
 * with a description whose provider pv may serve, but for dtrace:::ERROR's.
 * A probe made while tracing (a program exec'ed, a library dlopen()ed)
 * runs in the program of its kind, which may have been built when tracing
 * began for the probes there were then: one of "a*:::" for a process of
 * a's already running, say.  Built with those probes' clauses alone, it
 * ran nothing for a later probe of "b*:::", which went silent although its
 * uprobe fired.
 */
void dt_late_clauses_add(dtrace_hdl_t *dtp, const dt_provider_t *pv,
			 dt_clauseset_t *set)
{
	for (int c = 0; c < dtp->nclauses; c++)
		for (int i = 0; i < dtp->clause_ndescs[c]; i++)
			if (may_serve(dtp, pv, dtp->clause_descs[c][i].prv))
				dt_cs_add(set, c);
	if (dtp->error_probe)
		dt_cs_remove_all(set, &dtp->error_probe->clauses);
}

/* Whether pv may make probes while tracing (see provider.h). */
static bool makes_late_probes(const dt_provider_t *pv)
{
	return pv->ops->poll != NULL || pv->ops->notice_process != NULL ||
	       pv->ops->notice_files != NULL;
}

/* Assign each underlying probe to its program, and give each program the
 * clauses of the overlays on its probes, and those of the probes its
 * provider may make while tracing. */
void dt_group_programs(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	for (uint32_t i = 0; i < ps->nups; i++)
		ps->ups[i].prog = dt_kprog_find(ps, &ps->ups[i]);
	for (uint32_t i = 0; i < ps->novls; i++) {
		if (ps->ovls[i].cookie == 0)
			continue;	/* a free slot */
		dt_uprobe_ent_t *u = &ps->ups[ps->ovls[i].cookie - 1];
		overlay_clauses(dtp, &ps->ovls[i], &ps->progs[u->prog].clauses);
	}
	for (int i = 0; i < ps->nprogs; i++)
		for (uint32_t j = 0; j < ps->progs[i].nusers; j++)
			if (makes_late_probes(ps->progs[i].users[j].pv))
				dt_late_clauses_add(dtp, ps->progs[i].users[j].pv,
						    &ps->progs[i].clauses);
}
