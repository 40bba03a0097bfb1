/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_emit.c: the code of one program, emitted.
 *
 * A program, for one (set of (provider, kind) users, BEGIN/END flags):
 *
 *	prologue	r6 = ctx, r7 = mstate, activity check (this CPU's
 *			copy in the mstate, cpu_active), default key
 *	trampoline	the provider's: arguments into the mstate
 *	fast path	a program serving one site with one overlying probe
 *			(dt_fast_prid()): while DT_STATE_GENERIC is 0, that
 *			probe's clauses, then the epilogue
 *	lookup		r8 = overlay value, or leave
 *	dispatch	for each entry i of the overlay, for each clause c of
 *			this program: if clause c is in ent[i]'s set, call c;
 *			at a site of several users, the entry's trampoline
 *			first (a subprogram)
 *	epilogue	BEGIN activates the session, END stops it
 *	subprograms	the error handler, then each clause once
 *
 * r8 and r9 survive the calls (callee-saved), so the dispatch keeps the
 * overlay value in r8 and the current word of the entry's clause set in
 * r9 (dt_maskref_t).  The program's own stack
 * use is one 8-byte slot at fp-8 for map keys; the error handler, a
 * subprogram of its own, stages its record at fp-48..fp-8 of its frame.
 *
 * Chained programs (dt_prog_chain.c) and the prefilter
 * (dt_prog_prefilter.c) are built from these pieces; dt_prog_build.c puts
 * a program together.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_prog_impl.h"
#include "dt_kevent.h"
#include "dt_opt.h"
#include "dt_plugcall.h"
#include "dt_rec.h"

/* Which activity lets this program run: BEGIN runs before the session is
 * active, END while it drains (both read the session's own state), and
 * everything else only while it is active, which it reads in this CPU's
 * mstate (r7): emit_cpu_active_check(). */
static void emit_activity_check(dt_as_t *as, dtrace_map_t *state,
				unsigned flags, int out)
{
	if (!(flags & (DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END)))
		return;
	dt_as_array_lookup(as, state, DT_STATE_ACTIVITY);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
	if (flags & DTRACE_UPROBE_BEGIN)
		dt_as_jump(as, BPF_JNE, DT_R1, DT_ACTIVITY_INACTIVE, out);
	else
		dt_as_jump(as, BPF_JEQ, DT_R1, DT_ACTIVITY_STOPPED, out);
}

/* Leave unless the session is active on this CPU's copy (r7 = mstate).
 * The copies follow the session's activity: dt_prog_start() raises them
 * once it is active, dt_prog_stop() and exit() lower them. */
static void emit_cpu_active_check(dt_as_t *as, unsigned flags, int out)
{
	if (flags & (DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END))
		return;
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, cpu_active)));
	dt_as_jump(as, BPF_JEQ, DT_R1, 0, out);
}

/* The activity becomes act, from any (from < 0) or from that one only (BEGIN
 * leaves the session draining when it called exit()). */
static void emit_set_activity(dt_as_t *as, dtrace_map_t *state, int from,
			      int act)
{
	int skip = dt_as_label(as);

	dt_as_array_lookup(as, state, DT_STATE_ACTIVITY);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, skip);
	if (from >= 0) {
		EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
		dt_as_jump(as, BPF_JNE, DT_R1, from, skip);
	}
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R0, 0, act));
	dt_as_place(as, skip);
}


static const char *const stage_names[] = {
	"empty", "activity", "mstate", "trampoline", "overlay", "dispatch",
};

/* The stage after which programs of probes other than BEGIN and END stop:
 * DTRACE_BENCH_STOP's, else all. */
dt_stage_t dt_bench_stop(unsigned flags)
{
	const char *s = getenv("DTRACE_BENCH_STOP");

	if (s == NULL || (flags & (DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END)))
		return DT_STAGE_ALL;
	for (int i = 0; i < DT_STAGE_ALL; i++)
		if (strcmp(s, stage_names[i]) == 0)
			return (dt_stage_t)i;
	return DT_STAGE_ALL;
}

/* r7 = this CPU's mstate (the program cannot migrate while it runs), or
 * goto out. */
void dt_emit_mstate_find(dtrace_hdl_t *dtp, dt_as_t *as, int out)
{
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_smp_processor_id));
	EMIT(as, DT_STORE(BPF_W, DT_FP, -8, DT_R0));
	dt_as_load_map(as, DT_R1, dt_bpf_map_find(dtp, "mstate"));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -8));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R0));
}

/* The mstate's (r7) arguments read as 0 where a trampoline fills none. */
static void emit_args_clear(dt_as_t *as)
{
	for (int i = 0; i < DTRACE_ARGS_MAX; i++)
		EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, DTRACE_MSTATE_ARG(i), 0));
}

/* The mstate's regs_ip: the probe site's address, 0 without pt_regs. */
static void emit_key_ip(dt_as_t *as, bool regs)
{
	if (!regs) {
		EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7,
				      OFF(dtrace_mstate_t, regs_ip), 0));
		return;
	}
	EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R6, DTRACE_CTX_IP));
	EMIT(as, DT_STORE(BPF_DW, DT_R7, OFF(dtrace_mstate_t, regs_ip), DT_R1));
}

/* The mstate's key.pid: the firing's process (tgid). */
void dt_emit_key_pid(dt_as_t *as)
{
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
	EMIT(as, DT_ALU64_IMM(BPF_RSH, DT_R0, 32));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, key.pid), DT_R0));
}

/* The mstate's key.cookie: the underlying probe, the attach cookie's or
 * the program's own (cookie > 0: it serves that one). */
static void emit_key_cookie(dt_as_t *as, int64_t cookie)
{
	if (cookie > 0) {
		EMIT(as, DT_STORE_IMM(BPF_W, DT_R7,
				      OFF(dtrace_mstate_t, key.cookie),
				      (int32_t)cookie));
		return;
	}
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_attach_cookie));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, key.cookie),
			  DT_R0));
}


/* The public mstate's (r7) regs_ip and default overlay key (tgid, cookie),
 * which trampolines read, each field's instructions apart, for the caller
 * to leave out or move those a trampoline does not use. */
dt_key_insns_t dt_emit_firing_key(dt_as_t *as, int64_t cookie,
				  bool regs)
{
	dt_key_insns_t at;

	at.ip = as->ninsns;
	emit_key_ip(as, regs);
	at.pid = as->ninsns;
	dt_emit_key_pid(as);
	at.cookie = as->ninsns;
	emit_key_cookie(as, cookie);
	at.end = as->ninsns;
	return at;
}

/* Which fields of the firing key (DT_KEY_*) the instructions [from, to)
 * of as, a trampoline, read (or write, with stores) through r7, the
 * mstate: those it reads not need not be set before it, and those it
 * writes not may be set after it. */
unsigned dt_firing_key_used(const dt_as_t *as, uint32_t from, uint32_t to,
			    bool stores)
{
	static const dt_opt_field_t fields[] = {
		{ OFF(dtrace_mstate_t, regs_ip), 8, DT_KEY_IP },
		{ OFF(dtrace_mstate_t, key.pid), 4, DT_KEY_PID },
		{ OFF(dtrace_mstate_t, key.cookie), 4, DT_KEY_COOKIE },
	};
	static const dt_opt_fields_t key = {
		fields, sizeof(fields) / sizeof(fields[0])
	};

	return dt_opt_fields_used(as, from, to, DT_R7, &key, stores);
}

/* cookie > 0: the one underlying probe the program serves (dt_kp_cookie()),
 * which then needs no attach cookie.  regs: the context is a pt_regs
 * (dt_kp_has_regs()), which gives regs_ip.  The firing key ends it: where its
 * fields' instructions are is returned, for dt_prog_emit() to move key.pid's
 * where the overlay is looked up. */
dt_key_insns_t dt_emit_prologue(dtrace_hdl_t *dtp, dt_as_t *as,
				unsigned flags, int64_t cookie,
				bool regs, int out, dt_stage_t stop)
{
	dt_key_insns_t none = { 0, 0, 0, 0 };

	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	emit_activity_check(as, dt_bpf_map_find(dtp, "state"), flags, out);

	dt_emit_mstate_find(dtp, as, out);
	emit_cpu_active_check(as, flags, out);
	if (stop < DT_STAGE_MSTATE)
		return none;

	emit_args_clear(as);
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, OFF(dt_mstate_t, timestamp),
			      0));
	/* exited and strtok (a firing starts with no strtok string, as in
	 * DTrace), side by side: one store clears both. */
	_Static_assert(OFF(dt_mstate_t, strtok) ==
		       OFF(dt_mstate_t, exited) + 4 &&
		       OFF(dt_mstate_t, exited) % 8 == 0,
		       "exited and strtok share a double word");
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, OFF(dt_mstate_t, exited), 0));
	/* instance and errnum, side by side: one store clears both. */
	_Static_assert(OFF(dtrace_mstate_t, errnum) ==
		       OFF(dtrace_mstate_t, instance) + 4 &&
		       OFF(dtrace_mstate_t, instance) % 8 == 0,
		       "instance and errnum share a double word");
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, OFF(dtrace_mstate_t, instance),
			      0));
	return dt_emit_firing_key(as, cookie, regs);
}

/* r8 = the overlay of (pid, cookie), else of (0, cookie), else leave.
 * With inst (a label, else -1), a (0, cookie) overlay found for a firing
 * whose trampoline set mstate.instance gives way to the process's own
 * (dt_instance.c). */
void dt_emit_overlay_lookup(dtrace_hdl_t *dtp, dt_as_t *as, int out,
			    int inst)
{
	dtrace_map_t *ovl = dt_bpf_map_find(dtp, "overlay");
	int found = dt_as_label(as), found0 = dt_as_label(as);

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			EMIT(as, DT_STORE_IMM(BPF_W, DT_R7,
				 OFF(dtrace_mstate_t, key.pid), 0));
		dt_as_load_map(as, DT_R1, ovl);
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2,
				      OFF(dtrace_mstate_t, key)));
		EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
		dt_as_jump(as, BPF_JNE, DT_R0, 0,
			   pass == 1 && inst >= 0 ? found0 : found);
	}
	dt_as_jump(as, BPF_JA, 0, 0, out);
	if (inst >= 0) {
		int have = dt_as_label(as);

		dt_as_place(as, found0);
		EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7,
				 OFF(dtrace_mstate_t, instance)));
		dt_as_jump(as, BPF_JEQ, DT_R1, 0, have);
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R7));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R8));
		dt_as_call(as, inst);
		dt_as_jump(as, BPF_JEQ, DT_R0, 0, have);
		EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
		dt_as_jump(as, BPF_JA, 0, 0, have);
		dt_as_place(as, found);
		EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
		dt_as_place(as, have);
		return;
	}
	dt_as_place(as, found);
	EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
}

/* Whether clause c calls exit() itself. */
static bool clause_calls_exit(dtrace_hdl_t *dtp, int c)
{
	const dt_compiled_clause_t *cc = dtp->clauses[c];

	for (int i = 0; cc != NULL && i < cc->nacts; i++)
		if (cc->acts[i].kind == DT_ACT_EXIT)
			return true;
	return false;
}

/* Whether the firing may have exited once clause c returns: c calls exit(),
 * or an ERROR clause does, which runs when c faults (and then, as in
 * DTrace, the later clauses of the firing do not run). */
static bool clause_exits(dtrace_hdl_t *dtp, int c)
{
	const dtrace_probe_t *ep = dtp->error_probe;

	if (clause_calls_exit(dtp, c))
		return true;
	for (int e = 0; ep != NULL && e < dtp->nclauses; e++)
		if (dt_cs_has(&ep->clauses, e) && clause_calls_exit(dtp, e))
			return true;
	return false;
}


/* r1 = (clause c in the set of m) (non-zero when it is). */
static void emit_clause_test(dt_as_t *as, int c, dt_maskref_t *m)
{
	int bit = c % 64;

	if (m->cur != c / 64) {
		m->cur = c / 64;
		EMIT(as, DT_LOAD(BPF_DW, DT_R9, m->base, m->off + 8 * m->cur));
	}
	if (bit < 31) {
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R9));
		EMIT(as, DT_ALU64_IMM(BPF_AND, DT_R1, 1 << bit));
	} else {
		dt_as_ld_imm64(as, DT_R1, 1ull << bit);
		EMIT(as, DT_ALU64_REG(BPF_AND, DT_R1, DT_R9));
	}
}

/* if (c in m's set) { mst->clause = c; r0 = clause(ctx, mst); if (r0)
 * error(ctx, mst); }  A clause that called exit() ends the firing (goto
 * stop): DTrace runs nothing after the first exit(). */
void dt_emit_clause_call(dtrace_hdl_t *dtp, dt_as_t *as, int c,
			 int clause_label, int error_label, int stop,
			 dt_maskref_t *m)
{
	int next = dt_as_label(as);

	if (m->base >= 0) {
		emit_clause_test(as, c, m);
		dt_as_jump(as, BPF_JEQ, DT_R1, 0, next);
	}
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dtrace_mstate_t, clause),
			      c));
	/* The enabled probe id (epid, ERROR's arg1): clause + 1. */
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dt_mstate_t, epid), c + 1));
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
	dt_as_call(as, clause_label);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, next);
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
	dt_as_call(as, error_label);
	dt_as_place(as, next);
	if (clause_exits(dtp, c)) {
		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, exited)));
		dt_as_jump(as, BPF_JNE, DT_R1, 0, stop);
	}
}

/*
 * The dispatch with bpf_loop: the loop's callback holds the only call site
 * of each clause, so the verifier walks each clause once per program
 * rather than once per overlay entry.  The callback receives the entry
 * index and a pointer to three pointers staged on the program's stack:
 * fp-32 overlay value, fp-24 mstate, fp-16 context.
 */
void dt_emit_dispatch_loop(dt_as_t *as, int callback)
{
	EMIT(as, DT_STORE(BPF_DW, DT_FP, -32, DT_R8));
	EMIT(as, DT_STORE(BPF_DW, DT_FP, -24, DT_R7));
	EMIT(as, DT_STORE(BPF_DW, DT_FP, -16, DT_R6));
	int capped = dt_as_label(as);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, OFF(dt_overlay_t, n)));
	dt_as_jump(as, BPF_JLE, DT_R1, DT_OVERLAY_MAX, capped);
	EMIT(as, DT_MOV64_IMM(DT_R1, DT_OVERLAY_MAX));
	dt_as_place(as, capped);
	dt_as_ld_func(as, DT_R2, callback);
	EMIT(as, DT_MOV64_REG(DT_R3, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R3, -32));
	EMIT(as, DT_MOV64_IMM(DT_R4, 0));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_loop));
}

/* The callback of dt_emit_dispatch_loop(): (index, staged pointers); it
 * returns 1 (no more entries) after exit(). */
void dt_emit_dispatch_callback(dtrace_hdl_t *dtp, dt_as_t *as,
			       const dt_clauseset_t *clauses,
			       const int *clause_labels,
			       int error_label, int callback,
			       const int *tramps)
{
	int out = dt_as_label(as), stop = dt_as_label(as);
	bool exits = false;
	const uint32_t words = dt_clause_words(dtp->nclauses);
	const int ent = dt_ovl_ent_off(words, 0);
	dt_maskref_t m = { DT_R8, ent + OFF(dt_ovlent_t, clauses), -1 };

	dt_as_place(as, callback);
	EMIT(as, DT_MOV64_REG(DT_R9, DT_R1));
	EMIT(as, DT_LOAD(BPF_DW, DT_R8, DT_R2, 0));
	EMIT(as, DT_LOAD(BPF_DW, DT_R7, DT_R2, 8));
	EMIT(as, DT_LOAD(BPF_DW, DT_R6, DT_R2, 16));
	dt_as_jump(as, BPF_JGE, DT_R9, DT_OVERLAY_MAX, out);
	/* r8 = &ent[index] - offsetof(ent[0]), a bounded map-value offset */
	EMIT(as, DT_ALU64_IMM(BPF_MUL, DT_R9, dt_ovl_ent_size(words)));
	EMIT(as, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R9));
	if (tramps[0] >= 0)
		dt_emit_entry_trampoline(as, tramps, ent, out);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, ent + OFF(dt_ovlent_t, prid)));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid), DT_R1));
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(clauses, c)) {
			dt_emit_clause_call(dtp, as, c, clause_labels[c],
					    error_label, stop, &m);
			exits |= clause_exits(dtp, c);
		}
	dt_as_place(as, out);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
	if (!exits)
		return;
	dt_as_place(as, stop);
	EMIT(as, DT_MOV64_IMM(DT_R0, 1));
	EMIT(as, DT_EXIT());
}

/* The one underlying probe of program prog, or 0 if it has several. */
int64_t dt_one_cookie_of(const struct dt_progset *ps, int prog)
{
	int64_t cookie = 0;

	for (uint32_t i = 0; i < ps->nups; i++) {
		if (ps->ups[i].prog != prog)
			continue;
		if (cookie != 0)
			return 0;
		cookie = i + 1;
	}
	return cookie;
}

/*
 * The overlying probe of a program that serves one underlying probe with
 * one overlying probe, which the lookup would find for every firing of
 * that probe: dt_fast_prid, 0 for none.  Overlays and underlying
 * probes added while tracing set DT_STATE_GENERIC first (dt_generic_only()),
 * which sends every firing back to the lookup.
 */
uint32_t dt_fast_prid(dtrace_hdl_t *dtp, const struct dt_progset *ps,
		      const dt_kprog_t *kp)
{
	uint32_t cookie;

	if (ps->reconciled || kp->soft_cookie > 0 ||
	    getenv("DTRACE_BENCH_GENERIC"))
		return 0;
	cookie = (uint32_t)dt_one_cookie_of(ps, (int)(kp - ps->progs));
	if (cookie == 0)
		return 0;
	const dt_overlay_ent_t *only = NULL;
	for (uint32_t i = 0; i < ps->novls; i++) {
		if (ps->ovls[i].cookie != cookie)
			continue;
		if (only != NULL)
			return 0;
		only = &ps->ovls[i];
	}
	if (only == NULL || only->n != 1 ||
	    !dt_cs_subset(&dtp->probes[only->prids[0]]->clauses, &kp->clauses))
		return 0;
	/* An overlay of one process is the only one to apply when the site
	 * fires in that process alone; one of every process always is. */
	const dt_uprobe_ent_t *u = &ps->ups[cookie - 1];
	if (only->pid != 0 && (u->all || u->npids != 1 ||
			       (uint32_t)u->pids[0].pid != only->pid))
		return 0;
	return only->prids[0];
}

/* The clauses of probe prid called one after the other, while
 * DT_STATE_GENERIC is 0 (this CPU's copy, cpu_generic; else goto
 * generic); then goto done. */
void dt_emit_fast_dispatch(dtrace_hdl_t *dtp, dt_as_t *as, uint32_t prid,
			   const int *clause_labels, int error_label,
			   int generic, int done)
{
	const dt_clauseset_t *clauses = &dtp->probes[prid]->clauses;
	dt_maskref_t all = { -1, 0, -1 };

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, cpu_generic)));
	dt_as_jump(as, BPF_JNE, DT_R1, 0, generic);
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid),
			      (int32_t)prid));
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(clauses, c))
			dt_emit_clause_call(dtp, as, c, clause_labels[c],
					    error_label, done, &all);
	dt_as_jump(as, BPF_JA, 0, 0, done);
}

/* Without bpf_loop (kernels before 5.17): the entries unrolled. */
void dt_emit_dispatch(dtrace_hdl_t *dtp, dt_as_t *as,
		      const dt_clauseset_t *clauses,
		      const int *clause_labels, int error_label,
		      const int *tramps)
{
	int done = dt_as_label(as);
	const uint32_t words = dt_clause_words(dtp->nclauses);

	for (int i = 0; i < DT_OVERLAY_MAX; i++) {
		int next = dt_as_label(as);
		const int ent = dt_ovl_ent_off(words, i);
		dt_maskref_t m = { DT_R8, ent + OFF(dt_ovlent_t, clauses), -1 };

		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, OFF(dt_overlay_t, n)));
		dt_as_jump(as, BPF_JLE, DT_R1, i, done);
		if (tramps[0] >= 0)
			dt_emit_entry_trampoline(as, tramps, ent, next);
		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8,
				 ent + OFF(dt_ovlent_t, prid)));
		EMIT(as, DT_STORE(BPF_W, DT_R7,
				  OFF(dtrace_mstate_t, prid), DT_R1));
		for (int c = 0; c < dtp->nclauses; c++)
			if (dt_cs_has(clauses, c))
				dt_emit_clause_call(dtp, as, c, clause_labels[c],
						    error_label, done, &m);
		dt_as_place(as, next);
	}
	dt_as_place(as, done);
}

/* The error handler's stack slots, below its record at fp-48, where the
 * firing's probe and clause ids (one word) and enabled probe id wait while
 * the ERROR clauses run. */
#define ERR_SAVED_IDS	(-56)
#define ERR_SAVED_EPID	(-64)

/* Keep what the ERROR clauses overwrite of the firing, or with restore
 * put it back: arg0..arg5 (kept in the mstate's err_argv), and the probe,
 * clause and enabled probe ids (on the handler's stack).  r7: mstate. */
static void emit_error_firing_keep(dt_as_t *as, bool restore)
{
	static const struct { int mst, size, fp; } ids[] = {
		{ OFF(dtrace_mstate_t, prid), BPF_DW, ERR_SAVED_IDS },
		{ OFF(dt_mstate_t, epid), BPF_W, ERR_SAVED_EPID },
	};

	_Static_assert(OFF(dtrace_mstate_t, clause) ==
		       OFF(dtrace_mstate_t, prid) + 4 &&
		       OFF(dtrace_mstate_t, prid) % 8 == 0,
		       "prid and clause are kept as one word");
	for (int i = 0; i < 6; i++) {
		int arg = DTRACE_MSTATE_ARG(i);
		int kept = OFF(dt_mstate_t, err_argv) + 8 * i;

		EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R7, restore ? kept : arg));
		EMIT(as, DT_STORE(BPF_DW, DT_R7, restore ? arg : kept, DT_R1));
	}
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (restore) {
			EMIT(as, DT_LOAD(ids[i].size, DT_R1, DT_FP, ids[i].fp));
			EMIT(as, DT_STORE(ids[i].size, DT_R7, ids[i].mst,
					  DT_R1));
		} else {
			EMIT(as, DT_LOAD(ids[i].size, DT_R1, DT_R7,
					 ids[i].mst));
			EMIT(as, DT_STORE(ids[i].size, DT_FP, ids[i].fp,
					  DT_R1));
		}
	}
}

/* DTrace's ERROR arguments in arg0..arg5: arg1 EPID, arg2 action, arg3
 * pc, arg4 fault, arg5 address (arg0 is 0).  r7: mstate. */
static void emit_error_args(dt_as_t *as)
{
	static const struct { int from, size; } args[] = {
		{ -1, 0 },
		{ OFF(dtrace_mstate_t, clause), BPF_W },
		{ OFF(dt_mstate_t, fault_action), BPF_W },
		{ OFF(dt_mstate_t, fault_pc), BPF_W },
		{ OFF(dt_mstate_t, fault), BPF_W },
		{ OFF(dt_mstate_t, fault_addr), BPF_DW },
	};

	for (int i = 0; i < 6; i++) {
		if (args[i].from < 0) {
			EMIT(as, DT_MOV64_IMM(DT_R1, 0));
		} else {
			EMIT(as, DT_LOAD(args[i].size, DT_R1, DT_R7,
					 args[i].from));
		}
		if (i == 1)	/* EPID: clause + 1 */
			EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
		EMIT(as, DT_STORE(BPF_DW, DT_R7, DTRACE_MSTATE_ARG(i), DT_R1));
	}
}

/*
 * The ERROR clauses, called from the error handler (r6 context, r7 mstate)
 * as the firing of dtrace:::ERROR.  The faulting firing goes on with its
 * later clauses after them, so what they overwrite is put back.
 */
static void emit_error_clauses(dtrace_hdl_t *dtp, dt_as_t *as,
			       const int *clause_labels)
{
	dtrace_probe_t *ep = dtp->error_probe;

	emit_error_firing_keep(as, false);
	emit_error_args(as);
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid),
			      (int32_t)ep->id));
	for (int c = 0; c < dtp->nclauses; c++) {
		if (!dt_cs_has(&ep->clauses, c))
			continue;
		EMIT(as, DT_STORE_IMM(BPF_W, DT_R7,
				      OFF(dtrace_mstate_t, clause), c));
		EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dt_mstate_t, epid),
				      c + 1));
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		dt_as_call(as, clause_labels[c]);
	}
	emit_error_firing_keep(as, true);
}

/*
 * The error handler: error(ctx, mst).  Counts the fault, writes an error
 * record (header + dt_errrec_t staged on its stack) and runs the clauses
 * enabled on dtrace:::ERROR (emit_error_clauses()); a fault inside an
 * ERROR clause is dropped rather than recursing.
 */
static void emit_error_handler(dtrace_hdl_t *dtp, dt_as_t *as,
			       const int *clause_labels)
{
	const int rec = -48;	/* dt_rechdr_t then dt_errrec_t: 40 bytes */
	const int errp = rec + (int)sizeof(dt_rechdr_t);
	dtrace_probe_t *ep = dtp->error_probe;

	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R2));

	int nocount = dt_as_label(as);
	dt_as_array_lookup(as, dt_bpf_map_find(dtp, "cpuinfo"), 0);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, nocount);
	EMIT(as, DT_MOV64_IMM(DT_R1, 1));
	EMIT(as, DT_XADD(BPF_DW, DT_R0, OFF(dt_cpuinfo_t, errors), DT_R1));
	dt_as_place(as, nocount);

	EMIT(as, DT_STORE_IMM(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, clause),
			      (int32_t)DT_CLAUSE_ERROR));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dtrace_mstate_t, prid)));
	EMIT(as, DT_STORE(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, prid), DT_R1));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_smp_processor_id));
	EMIT(as, DT_STORE(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, cpu), DT_R0));
	EMIT(as, DT_STORE_IMM(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, spec), 0));

	static const struct { int from, to, size; } copy[] = {
		{ OFF(dtrace_mstate_t, clause),
		  OFF(dt_errrec_t, clause), BPF_W },
		{ OFF(dt_mstate_t, fault_action),
		  OFF(dt_errrec_t, action), BPF_W },
		{ OFF(dt_mstate_t, fault_pc), OFF(dt_errrec_t, pc),
		  BPF_W },
		{ OFF(dt_mstate_t, fault), OFF(dt_errrec_t, fault),
		  BPF_W },
		{ OFF(dt_mstate_t, fault_addr), OFF(dt_errrec_t, addr),
		  BPF_DW },
	};
	for (size_t i = 0; i < sizeof(copy) / sizeof(copy[0]); i++) {
		EMIT(as, DT_LOAD(copy[i].size, DT_R1, DT_R7, copy[i].from));
		EMIT(as, DT_STORE(copy[i].size, DT_FP, errp + copy[i].to, DT_R1));
	}

	int sent = dt_as_label(as);
	dt_as_load_map(as, DT_R1, dt_bpf_map_find(dtp, "output"));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, rec));
	EMIT(as, DT_MOV64_IMM(DT_R3, sizeof(dt_rechdr_t) + sizeof(dt_errrec_t)));
	EMIT(as, DT_MOV64_IMM(DT_R4, 0));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_ringbuf_output));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, sent);
	dt_as_array_lookup(as, dt_bpf_map_find(dtp, "cpuinfo"), 0);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, sent);
	EMIT(as, DT_MOV64_IMM(DT_R1, 1));
	EMIT(as, DT_XADD(BPF_DW, DT_R0, OFF(dt_cpuinfo_t, buf_drops),
			 DT_R1));
	dt_as_place(as, sent);

	if (ep != NULL && !dt_cs_empty(&ep->clauses))
		emit_error_clauses(dtp, as, clause_labels);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
}

/* The arguments the clauses of set read (bit i: argv[i]). */
static uint64_t clauses_args_read(dtrace_hdl_t *dtp, const dt_clauseset_t *set)
{
	uint64_t args = 0;

	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(set, c) && dtp->clauses[c] != NULL)
			args |= dtp->clauses[c]->args_read;
	return args;
}

/* The underlying probes the program kp serves now, in increasing order,
 * into a new array (*n of them; NULL when it serves none). */
static int64_t *kp_cookies(dtrace_hdl_t *dtp, const dt_kprog_t *kp,
			   size_t *n)
{
	const struct dt_progset *ps = dt_progset_of(dtp);
	int prog = (int)(kp - ps->progs);
	int64_t *cookies = NULL;
	size_t cap = 0;

	*n = 0;
	for (uint32_t i = 0; i < ps->nups; i++) {
		if (ps->ups[i].prog != prog)
			continue;
		dt_array_room(cookies, *n, cap);
		cookies[(*n)++] = (int64_t)i + 1;
	}
	return cookies;
}

/* The one underlying probe kp serves for as long as it lives, or 0: a
 * soft program's, a kernel event's own program's, or that of a uprobe
 * program built for one site (fixed_cookie, see dt_load_programs()). */
int64_t dt_kp_cookie(const dt_kprog_t *kp)
{
	return kp->soft_cookie > 0 ? kp->soft_cookie : kp->fixed_cookie;
}

/* Whether kp's context is a pt_regs, which gives the site's address: not
 * when the engine runs it itself (soft), nor on a tracepoint's record or
 * a kernel event without registers. */
bool dt_kp_has_regs(const dt_kprog_t *kp)
{
	return kp->soft_cookie <= 0 && !kp->tracepoint &&
	       dt_kevent_has_regs(kp->kev);
}

int dt_emit_trampoline_of(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			  const dt_site_user_t *user, dt_as_t *as,
			  int skip, int pass, uint64_t args_read);

/* The trampoline of user in the program of kp; skip: the firing is not
 * for it.  0 or -1 after dt_set_error(). */
int dt_emit_trampoline(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		       const dt_site_user_t *user, dt_as_t *as, int skip)
{
	return dt_emit_trampoline_of(dtp, kp, user, as, skip, -1,
				     clauses_args_read(dtp, &kp->clauses));
}

/* dt_emit_trampoline(), reading the arguments of args_read (bit i: argv[i])
 * at least; pass: the prefilter's label to run the full path
 * (dtrace_trampoline_t's prefilter_pass), else -1. */
int dt_emit_trampoline_of(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			  const dt_site_user_t *user, dt_as_t *as,
			  int skip, int pass, uint64_t args_read)
{
	dt_provider_t *pv = user->pv;
	dtrace_trampoline_t tr = {
		.size = sizeof(tr), .kind = user->kind, .skip = skip,
		.args_read = args_read, .prefilter_pass = pass,
		.sole_cookie = dt_kp_cookie(kp),
	};
	int64_t *cookies = kp_cookies(dtp, kp, &tr.ncookies);
	tr.cookies = cookies;
	dt_plugin_call_t call = dt_plugin_enter(dtp, pv, "trampoline()");
	int rc = pv->ops->trampoline(pv, pv->data, as, &tr);
	dt_as_cold(as, false);
	dt_plugin_leave(dtp, call);
	free(cookies);
	if (rc < 0 && dtp->errmsg[0] == '\0')
		dt_set_error(dtp, "provider %s failed to generate its "
			     "trampoline", pv->ops->name);
	return rc < 0 ? -1 : 0;
}

/* The trampoline a program runs before its overlay lookup: its only
 * one, else (a shared site) the one of a provider with templates, whose
 * trampoline sets mstate.instance for the lookup; else none. */
const dt_site_user_t *dt_kp_first_user(const dt_kprog_t *kp)
{
	if (kp->nusers <= 1)
		return &kp->users[0];
	for (uint32_t i = 0; i < kp->nusers; i++)
		if (kp->users[i].pv->templates)
			return &kp->users[i];
	return NULL;
}

/*
 * At a site that several providers share, each overlay entry's arguments
 * are read by its provider's trampoline, a subprogram of the program:
 * tramp(ctx, mst) fills argv[] (from zero) and returns 0, or 1 when the
 * firing is not for it.  Its own frame keeps the dispatch's registers and
 * stack whatever the trampoline uses.
 */
int dt_emit_trampoline_sub(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			   dt_as_t *as, uint32_t i, int label)
{
	int skip = dt_as_label(as), done = dt_as_label(as);

	dt_as_place(as, label);
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R2));
	emit_args_clear(as);
	if (dt_emit_trampoline(dtp, kp, &kp->users[i], as, skip) < 0)
		return -1;
	/* A conditional jump over the skip path: reachable for the
	 * verifier's walk of the code even when the trampoline never skips. */
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, done);
	dt_as_place(as, skip);
	EMIT(as, DT_MOV64_IMM(DT_R0, 1));
	dt_as_place(as, done);
	EMIT(as, DT_EXIT());
	return 0;
}

/* Before the clauses of the overlay entry at r8 + ent (a shared site):
 * call its provider's trampoline (tramps[], by the entry's flags); an
 * entry it is not for goes to next. */
void dt_emit_entry_trampoline(dt_as_t *as, const int *tramps, int ent,
			      int next)
{
	int have = dt_as_label(as);

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, ent + OFF(dt_ovlent_t, flags)));
	EMIT(as, DT_ALU64_IMM(BPF_RSH, DT_R1, DT_OVL_USER_SHIFT));
	for (int i = 0; i < DT_SITE_USERS && tramps[i] >= 0; i++) {
		int other = dt_as_label(as);

		dt_as_jump(as, BPF_JNE, DT_R1, i, other);
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		dt_as_call(as, tramps[i]);
		dt_as_jump(as, BPF_JNE, DT_R0, 0, next);
		dt_as_jump(as, BPF_JA, 0, 0, have);
		dt_as_place(as, other);
	}
	dt_as_jump(as, BPF_JA, 0, 0, next);
	dt_as_place(as, have);
}

/* BEGIN activates the session, END stops it. */
void dt_emit_epilogue(dtrace_hdl_t *dtp, dt_as_t *as, unsigned flags)
{
	if (flags & DTRACE_UPROBE_BEGIN)
		emit_set_activity(as, dt_bpf_map_find(dtp, "state"),
				  DT_ACTIVITY_INACTIVE, DT_ACTIVITY_ACTIVE);
	if (flags & DTRACE_UPROBE_END)
		emit_set_activity(as, dt_bpf_map_find(dtp, "state"), -1,
				  DT_ACTIVITY_STOPPED);
}

/* The error handler and the clause subprograms of needed, with labels. */
void dt_emit_subprograms(dtrace_hdl_t *dtp, dt_as_t *as,
			 const dt_clauseset_t *needed, int error_label,
			 const int *clause_labels)
{
	if (!dt_cs_empty(needed)) {
		dt_as_place(as, error_label);
		emit_error_handler(dtp, as, clause_labels);
	}
	for (int c = 0; c < dtp->nclauses; c++) {
		if (clause_labels[c] < 0)
			continue;
		dt_as_place(as, clause_labels[c]);
		dt_as_append(as, &dtp->clauses[c]->code);
	}
}

/* The code of kp's what ("program", "prefilter") in as, its cold code
 * placed last and its labels resolved.  0 or -1 after dt_set_error(). */
int dt_kp_finish(dtrace_hdl_t *dtp, const dt_kprog_t *kp, dt_as_t *as,
		 const char *what)
{
	dt_as_cold_place(as);
	if (dt_as_finish(as) != 0) {
		dt_set_error(dtp, "failed to assemble the %s of %s: %s", what,
			     kp->pv->ops->name, as->errmsg);
		return -1;
	}
	return 0;
}
