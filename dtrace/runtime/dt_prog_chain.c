/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_chain.c: programs chained by tail calls.
 *
 * A program whose clauses take more subprograms than the kernel lets one
 * program have runs them in a chain of programs (dt_chain_t in
 * dt_prog_impl.h says how): here the clauses are split into parts and
 * each part's program is emitted, from the pieces of dt_prog_emit.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dt_prog_impl.h"

/* Subprograms the finished code of a clause holds besides itself: the
 * distinct targets of its calls and of its callbacks' addresses. */
static int code_subprogs(const dt_as_t *code)
{
	int32_t *seen = NULL;
	int n = 0;

	for (uint32_t i = 0; i < code->ninsns; i++) {
		const struct bpf_insn *in = &code->insns[i];
		bool call = in->code == (BPF_JMP | BPF_CALL) &&
			    in->src_reg == BPF_PSEUDO_CALL;
		bool func = in->code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    in->src_reg == BPF_PSEUDO_FUNC;
		int32_t target = (int32_t)i + in->imm + 1;
		int j = 0;

		if (!call && !func)
			continue;
		while (j < n && seen[j] != target)
			j++;
		if (j < n)
			continue;
		seen = dt_realloc(seen, (n + 1) * sizeof(*seen));
		seen[n++] = target;
	}
	free(seen);
	return n;
}

static int clause_subprogs(dtrace_hdl_t *dtp, int c)
{
	return 1 + code_subprogs(&dtp->clauses[c]->code);
}

int dt_set_subprogs(dtrace_hdl_t *dtp, const dt_clauseset_t *set)
{
	int n = 0;

	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(set, c))
			n += clause_subprogs(dtp, c);
	return n;
}

void dt_chain_free(dt_kprog_t *kp)
{
	dt_chain_t *ch = kp->chain;

	if (ch == NULL)
		return;
	for (int k = 0; k < DT_CHAIN_MAX; k++)
		dt_cs_free(&ch->parts[k]);
	for (int k = 0; k < ch->nparts; k++)
		dt_as_fini(&ch->as[k]);
	free(ch->parts);
	free(ch->as);
	free(ch);
	kp->chain = NULL;
}

/* Split clauses into parts[] of at most DT_CHAIN_SUBPROGS subprograms
 * each, base (the error handler's) included.  Returns how many, or -1
 * when more than DT_CHAIN_MAX. */
static int chain_split(dtrace_hdl_t *dtp, const dt_clauseset_t *clauses,
		       int base, dt_clauseset_t *parts)
{
	int n = 0, used = 0;

	for (int c = 0; c < dtp->nclauses; c++) {
		if (!dt_cs_has(clauses, c))
			continue;
		int k = clause_subprogs(dtp, c);
		if (used > 0 && base + used + k > DT_CHAIN_SUBPROGS) {
			n++;
			used = 0;
		}
		if (n == DT_CHAIN_MAX)
			return -1;
		dt_cs_add(&parts[n], c);
		used += k;
	}
	return n + 1;
}

/* tail_call(ctx, map, index); falls through when it fails. */
static void emit_tail_call(dt_as_t *as, dtrace_map_t *map, int index)
{
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	dt_as_load_map(as, DT_R2, map);
	EMIT(as, DT_MOV64_IMM(DT_R3, index));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_tail_call));
}

/* The program's entry into its chain: entry 0, part 0. */
void dt_emit_chain_enter(dt_as_t *as, const dt_chain_t *ch)
{
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dt_mstate_t, chain_ent), 0));
	emit_tail_call(as, ch->map, 0);
}

/* r8 = the overlay the program found, or goto out: (pid, cookie) of the
 * mstate's key; when the lookup fell back to (0, cookie), first the
 * process's own overlay made from it (instance, dt_instance.c). */
static void emit_chain_lookup(dtrace_hdl_t *dtp, dt_as_t *as, int out)
{
	dtrace_map_t *ovl = dt_bpf_map_find(dtp, "overlay");
	int keyed = dt_as_label(as), have = dt_as_label(as);

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dtrace_mstate_t, key.pid)));
	dt_as_jump(as, BPF_JNE, DT_R1, 0, keyed);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dtrace_mstate_t, instance)));
	dt_as_place(as, keyed);
	EMIT(as, DT_STORE(BPF_W, DT_FP, -8, DT_R1));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7,
			 OFF(dtrace_mstate_t, key.cookie)));
	EMIT(as, DT_STORE(BPF_W, DT_FP, -4, DT_R1));
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7,
					 OFF(dtrace_mstate_t, key.pid)));
			EMIT(as, DT_STORE(BPF_W, DT_FP, -8, DT_R1));
		}
		dt_as_load_map(as, DT_R1, ovl);
		EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
		EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -8));
		EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
		dt_as_jump(as, BPF_JNE, DT_R0, 0, have);
	}
	dt_as_jump(as, BPF_JA, 0, 0, out);
	dt_as_place(as, have);
	EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
}

/* r8 = &entry chain_ent - its offset, its PRID the firing's; part 0
 * goes to out when no entry is left. */
static void emit_chain_entry(dtrace_hdl_t *dtp, dt_as_t *as, int part,
			     int out)
{
	const uint32_t words = dt_clause_words(dtp->nclauses);
	const int ent = dt_ovl_ent_off(words, 0);

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, chain_ent)));
	if (part == 0) {
		EMIT(as, DT_LOAD(BPF_W, DT_R2, DT_R8, OFF(dt_overlay_t, n)));
		dt_as_jump_reg(as, BPF_JGE, DT_R1, DT_R2, out);
	}
	dt_as_jump(as, BPF_JGE, DT_R1, DT_OVERLAY_MAX, out);
	EMIT(as, DT_ALU64_IMM(BPF_MUL, DT_R1, dt_ovl_ent_size(words)));
	EMIT(as, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R1));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, ent + OFF(dt_ovlent_t, prid)));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid), DT_R1));
}

/* Part 0 for the next entry. */
static void emit_chain_next_entry(dt_as_t *as, const dt_chain_t *ch)
{
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, chain_ent)));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dt_mstate_t, chain_ent), DT_R1));
	emit_tail_call(as, ch->map, 0);
}

/* After part k: the next part, or part 0 for the next entry. */
static void emit_chain_next(dt_as_t *as, const dt_chain_t *ch, int part)
{
	if (part + 1 < ch->nparts) {
		emit_tail_call(as, ch->map, part + 1);
		return;
	}
	emit_chain_next_entry(as, ch);
}

/* Part k of kp's chain into ch->as[k]. */
static int emit_chain_part(dtrace_hdl_t *dtp, dt_kprog_t *kp, int k)
{
	dt_chain_t *ch = kp->chain;
	dt_as_t *as = &ch->as[k];
	const int ent = dt_ovl_ent_off(dt_clause_words(dtp->nclauses), 0);
	dt_maskref_t m = { DT_R8, ent + OFF(dt_ovlent_t, clauses), -1 };
	dt_clauseset_t needed = { 0 };
	int *labels = dt_zalloc((dtp->nclauses + 1) * sizeof(*labels));
	int out = dt_as_label(as), error_label = dt_as_label(as);

	dt_cs_copy(&needed, &ch->parts[k]);
	if (dtp->error_probe)
		dt_cs_or(&needed, &dtp->error_probe->clauses);
	for (int c = 0; c < dtp->nclauses; c++)
		labels[c] = dt_cs_has(&needed, c) ? dt_as_label(as) : -1;
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	dt_emit_mstate_find(dtp, as, out);
	emit_chain_lookup(dtp, as, out);
	emit_chain_entry(dtp, as, k, out);
	/* At a shared site, part 0 runs the entry's trampoline: the later
	 * parts find its arguments in the mstate. */
	int tramps[DT_SITE_USERS], other = dt_as_label(as);
	for (uint32_t i = 0; i < DT_SITE_USERS; i++)
		tramps[i] = k == 0 && kp->nusers > 1 && i < kp->nusers ?
			    dt_as_label(as) : -1;
	if (tramps[0] >= 0)
		dt_emit_entry_trampoline(as, tramps, ent, other);
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(&ch->parts[k], c))
			dt_emit_clause_call(dtp, as, c, labels[c], error_label,
					    out, &m);
	emit_chain_next(as, ch, k);
	if (tramps[0] >= 0) {
		dt_as_place(as, other);
		emit_chain_next_entry(as, ch);
	}
	dt_as_place(as, out);
	dt_emit_epilogue(dtp, as, kp->flags);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
	dt_emit_subprograms(dtp, as, &needed, error_label, labels);
	free(labels);
	dt_cs_free(&needed);
	for (uint32_t i = 0; i < DT_SITE_USERS && tramps[i] >= 0; i++)
		if (dt_emit_trampoline_sub(dtp, kp, as, i, tramps[i]) < 0)
			return -1;
	/* The trampolines' functions of rarely run code, last. */
	if (dt_kp_finish(dtp, kp, as, "program") < 0)
		return -1;
	return 0;
}

/* kp->chain for clauses, which take too many subprograms for one
 * program.  Returns 0 or -1. */
int dt_chain_build(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		   const dt_clauseset_t *clauses)
{
	struct dt_progset *ps = dt_progset_of(dtp);
	dt_chain_t *ch = dt_zalloc(sizeof(*ch));
	int base = 1;
	char name[32];

	kp->chain = ch;
	ch->parts = dt_zalloc(DT_CHAIN_MAX * sizeof(*ch->parts));
	if (dtp->error_probe)
		base += dt_set_subprogs(dtp, &dtp->error_probe->clauses);
	ch->nparts = chain_split(dtp, clauses, base, ch->parts);
	if (ch->nparts < 0) {
		ch->nparts = 0;
		dt_set_error(dtp, "the clauses of a %s probe take more than "
			     "%d programs of %d BPF subprograms", kp->pv->ops->name,
			     DT_CHAIN_MAX, DT_CHAIN_SUBPROGS);
		return -1;
	}
	/* A map of its own: a program array takes the type of the first
	 * program loaded with it, and a soft program may be tried as
	 * another type first. */
	snprintf(name, sizeof(name), "chain%d%s", (int)(kp - ps->progs),
		 kp->soft_cookie > 0 ? "s" : "");
	ch->map = dt_bpf_map(dtp, name, BPF_MAP_TYPE_PROG_ARRAY, 4, 4,
			     DT_CHAIN_MAX);
	if (ch->map == NULL)
		return -1;
	ch->as = dt_zalloc(ch->nparts * sizeof(*ch->as));
	for (int k = 0; k < ch->nparts; k++) {
		dt_as_init(&ch->as[k]);
		if (emit_chain_part(dtp, kp, k) < 0)
			return -1;
	}
	return 0;
}
