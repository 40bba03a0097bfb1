/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_prefilter.c: the prefilter of a program, emitted.
 *
 * (What it is: the comment above dt_prefilter_fits().)  Its code is made
 * here from the trampoline and the clauses' predicates; the rewriting that
 * follows, dataflow included, is the optimizer's (dt_opt.c,
 * dt_opt_inline.c).
 */
#include <stdlib.h>

#include "dt_prog_impl.h"
#include "dt_opt.h"

/*
 * The prefilter: a firing whose clauses all have predicates that read
 * only arguments (dt_compiled_clause_t.pred), and all fail, does nothing
 * whatever the session's state.  A program whose clauses are all such
 * first calls prefilter(ctx), which runs the trampoline into a copy of
 * the public mstate on its own stack and tests each predicate there; when
 * none holds, the program returns before touching the mstate (the page
 * every firing otherwise touches, the activity check and the lookups).
 * When one holds, the firing runs in full, predicates again included: the
 * activity check, faults, drops and exit() are the general path's.  The
 * clauses are any the program may call, so that overlays changed while
 * tracing stay covered.  The prefilter is built apart and optimized
 * (dt_opt.c): the arguments a predicate tests are read from the context
 * where it tests them, and the copy goes.  What is left runs inline at the
 * program's entry when it uses no stack and calls no subprogram (one
 * clause that reads no argument again after testing it), else as
 * the program's first subprogram.
 */
#define DT_PREFILTER_MAX	8	/* clauses tested at most */
#define DT_PREFILTER_MST	232	/* the copy of the public mstate:
					   fp - 232 .. fp - 73 */

/* Whether the program of kp, calling clauses, takes a prefilter. */
bool dt_prefilter_fits(dtrace_hdl_t *dtp, const dt_kprog_t *kp,
		       const dt_clauseset_t *clauses)
{
	int n = 0;

	if (kp->chain != NULL || kp->nusers != 1 || kp->soft_cookie > 0 ||
	    (kp->flags & DT_PROG_FLAGS) || dt_cs_empty(clauses) ||
	    getenv("DTRACE_BENCH_NOPREFILTER"))
		return false;
	for (int c = 0; c < dtp->nclauses; c++) {
		if (!dt_cs_has(clauses, c))
			continue;
		if (dtp->clauses[c] == NULL || dtp->clauses[c]->pred.ninsns == 0 ||
		    ++n > DT_PREFILTER_MAX)
			return false;
	}
	return true;
}


/* r0 = ret; exit; at label, when a jump names it: the verifier refuses code
 * it cannot reach. */
static void emit_return_at(dt_as_t *as, int label, int ret)
{
	if (!dt_as_label_used(as, label))
		return;
	dt_as_place(as, label);
	EMIT(as, DT_MOV64_IMM(DT_R0, ret));
	EMIT(as, DT_EXIT());
}

/* prefilter(ctx) at label: non-zero when a predicate of clauses holds, 0
 * when none does or the trampoline skips the firing.  The last predicate
 * runs inline (its return is the prefilter's), the others as subprograms
 * that follow.  0 or -1 after dt_set_error(). */
static int emit_prefilter(dtrace_hdl_t *dtp, dt_kprog_t *kp, dt_as_t *as,
			  const dt_clauseset_t *clauses, int label)
{
	int skip = dt_as_label(as), pass = dt_as_label(as);
	int preds[DT_PREFILTER_MAX], labels[DT_PREFILTER_MAX], n = 0;

	/* The copy lies below the predicate's frame (DT_FRAME_*: the
	 * context and the spill slots, 72 bytes), which the inline
	 * predicate shares; the trampoline ran before it. */
	_Static_assert(DT_PREFILTER_MST - sizeof(dtrace_mstate_t) >= 72,
		       "the public mstate's copy clears the predicate's frame");
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(clauses, c)) {
			labels[n] = dt_as_label(as);
			preds[n++] = c;
		}
	dt_as_place(as, label);
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R7, -DT_PREFILTER_MST));
	/* The arguments the predicates read, 0 where the trampoline fills
	 * none; the trampoline reads the key and regs_ip, set below. */
	uint64_t args = 0;
	for (int i = 0; i < n; i++)
		args |= dtp->clauses[preds[i]]->pred_args;
	for (int i = 0; i < DTRACE_ARGS_MAX; i++)
		if (args & (1ull << i))
			EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7,
					      DTRACE_MSTATE_ARG(i), 0));
	/* The key's fields, each left out after the trampoline when it
	 * uses it not: their helper calls are most of the prefilter. */
	dt_key_insns_t key = dt_emit_firing_key(as, dt_kp_cookie(kp),
						dt_kp_has_regs(kp));
	if (dt_emit_trampoline_of(dtp, kp, &kp->users[0], as, skip, pass,
				  args) < 0)
		return -1;
	unsigned used = dt_firing_key_used(as, key.end, as->ninsns, false);
	if (!(used & DT_KEY_IP))
		dt_opt_nop(as, key.ip, key.pid);
	if (!(used & DT_KEY_PID))
		dt_opt_nop(as, key.pid, key.cookie);
	if (!(used & DT_KEY_COOKIE))
		dt_opt_nop(as, key.cookie, key.end);
	/* The trampoline falls through to the predicates; its skip and pass
	 * paths follow the last one. */
	for (int i = 0; i < n; i++) {
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		if (i == n - 1) {
			dt_as_append(as, &dtp->clauses[preds[i]]->pred);
			break;
		}
		dt_as_call(as, labels[i]);
		dt_as_jump(as, BPF_JNE, DT_R0, 0, pass);
	}
	emit_return_at(as, skip, 0);
	emit_return_at(as, pass, 1);
	for (int i = 0; i + 1 < n; i++) {
		dt_as_place(as, labels[i]);
		dt_as_append(as, &dtp->clauses[preds[i]]->pred);
	}
	return 0;
}

/* The prefilter, built apart into pf (dt_as_init()ed, empty): finished,
 * then optimized (dt_opt.c), which reads the arguments the predicates
 * test from the context and drops the copy they were read from.
 * 0 or -1 after dt_set_error(). */
int dt_prefilter_build(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		       const dt_clauseset_t *clauses, dt_as_t *pf)
{
	if (emit_prefilter(dtp, kp, pf, clauses, dt_as_label(pf)) < 0)
		return -1;
	if (dt_kp_finish(dtp, kp, pf, "prefilter") < 0)
		return -1;
	if (!getenv("DTRACE_BENCH_NOPREOPT")) {
		dt_opt_function(pf, 0, true);
		dt_opt_caller_saved_tail(pf, 0, true);
	}
	return 0;
}

/* Where the context waits while the prefilter pf runs inline at the
 * program's entry (dt_opt_inline_reg()), or -1: pf runs as the program's
 * first subprogram. */
int dt_prefilter_inline_reg(const dt_as_t *pf)
{
	if (getenv("DTRACE_BENCH_NOPREINLINE"))
		return -1;
	return dt_opt_inline_reg(pf);
}
