/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_spec.c: speculations in BPF: speculation(), speculate(), and the
 * end of commit() and discard().
 *
 * The "spec" ARRAY map holds one value of nspec + 1 u64 slots: slot 0
 * counts the speculation() calls that found no free speculation, slot i
 * (1 <= i <= nspec) is speculation i's state, 0 free or 1 active.
 * speculation() claims a free one with a compare-and-exchange.  The data
 * of a clause that speculate()s goes to the output buffer like any
 * other, its header's spec naming the speculation (DT_SPEC_INACTIVE when
 * that one is not active); the consumer keeps it aside until the
 * commit() or discard() record of that speculation (dt_consume.c).  A
 * speculation is freed once its commit() or discard() record is in the
 * buffer, so that the consumer meets every record of a speculation
 * before the commit that ends it, and none after.  commit() and discard()
 * of an id above nspec fault (dt_cg_spec_id_check()).
 */
#include "dt_cg_impl.h"
#include "dt_progdesc.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
#define DT_CMPXCHG(d, o, s) \
	DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_CMPXCHG)
#define DT_ATOMIC_ADD(d, o, s) \
	DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)

static uint32_t nspec(const dt_cg_t *cx)
{
	return (uint32_t)cx->dtp->opt.nspec;
}

static dtrace_map_t *spec_map(dt_cg_t *cx)
{
	return dt_cg_map(cx->st, "spec", BPF_MAP_TYPE_ARRAY, 4,
			 8 * (nspec(cx) + 1), 1);
}

/* speculation(): a free speculation's id, now active, or 0. */
int dt_cg_speculation(dt_cg_t *cx)
{
	int fail = dt_as_label(cx->as), got = dt_as_label(cx->as);

	dt_cg_array_value(cx, spec_map(cx), fail);
	EMIT(DT_MOV64_REG(DT_R1, DT_R0));
	for (uint32_t i = 1; i <= nspec(cx); i++) {
		EMIT(DT_MOV64_IMM(DT_R3, (int32_t)i));
		EMIT(DT_MOV64_IMM(DT_R2, 1));
		EMIT(DT_MOV64_IMM(DT_R0, 0));
		EMIT(DT_CMPXCHG(DT_R1, (int16_t)(8 * i), DT_R2));
		dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, got);
	}
	EMIT(DT_MOV64_IMM(DT_R2, 1));		/* a failed speculation */
	EMIT(DT_ATOMIC_ADD(DT_R1, 0, DT_R2));
	dt_as_place(cx->as, fail);
	EMIT(DT_MOV64_IMM(DT_R3, 0));
	dt_as_place(cx->as, got);
	int reg = dt_regs_take(cx);
	EMIT(DT_MOV64_REG(reg, DT_R3));
	return reg;
}

static int16_t hdr_spec_off(const dt_cg_t *cx)
{
	return (int16_t)(cx->st->off_rec + offsetof(dt_rechdr_t, spec));
}

/* speculate(id): the record's header names speculation id, or
 * DT_SPEC_INACTIVE when id is not an active speculation. */
void dt_cg_speculate(dt_cg_t *cx, dt_node_t *id)
{
	int inactive = dt_as_label(cx->as), store = dt_as_label(cx->as);
	int v = dt_cg_expr(cx, id);

	dt_as_jump(cx->as, BPF_JEQ, v, 0, inactive);
	dt_as_jump(cx->as, BPF_JGT, v, (int32_t)nspec(cx), inactive);
	dt_cg_array_value(cx, spec_map(cx), inactive);
	EMIT(DT_MOV64_REG(DT_R1, v));
	EMIT(DT_ALU64_IMM(BPF_LSH, DT_R1, 3));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R1));
	EMIT(DT_LOAD(BPF_DW, DT_R2, DT_R0, 0));
	dt_as_jump(cx->as, BPF_JNE, DT_R2, 1, inactive);
	EMIT(DT_MOV64_REG(DT_R3, v));
	dt_as_jump(cx->as, BPF_JA, 0, 0, store);
	dt_as_place(cx->as, inactive);
	EMIT(DT_MOV64_IMM(DT_R3, -1));		/* DT_SPEC_INACTIVE */
	dt_as_place(cx->as, store);
	EMIT(DT_STORE(BPF_W, DT_R9, hdr_spec_off(cx), DT_R3));
	dt_regs_give(cx, v);
}

/* At the start of a clause that speculates: not speculative until its
 * speculate() runs. */
void dt_cg_spec_clause_start(dt_cg_t *cx)
{
	if (cx->speculates)
		EMIT(DT_STORE_IMM(BPF_W, DT_R9, hdr_spec_off(cx), 0));
}

/* An id above nspec (a negative one too) is no speculation: an illegal
 * operation, as in DTrace.  0 and an id of a speculation that is not
 * active are no error: the consumer ignores their record. */
void dt_cg_spec_id_check(dt_cg_t *cx, uint32_t off)
{
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R9, (int16_t)off));
	dt_cg_fault_if(cx, BPF_JGT, DT_R0, (int32_t)nspec(cx), DT_FAULT_ILLOP,
		       -1);
}

/* Emit: free the speculation whose id action i recorded, when the action
 * ran (its bit of the action mask). */
static void spec_free(dt_cg_t *cx, int i)
{
	uint32_t data = cx->st->off_rec + (uint32_t)sizeof(dt_rechdr_t);
	uint32_t stage = cx->st->off_scratch + 16;
	int skip = dt_as_label(cx->as);

	if (cx->actmask) {
		EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R9, (int16_t)data));
		dt_as_ld_imm64(cx->as, DT_R2, 1ULL << i);
		EMIT(DT_ALU64_REG(BPF_AND, DT_R1, DT_R2));
		dt_as_jump(cx->as, BPF_JEQ, DT_R1, 0, skip);
	}
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9,
		     (int16_t)(data + cx->acts[i].recs[0].offset)));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)stage, DT_R3));
	dt_cg_array_value(cx, spec_map(cx), skip);
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)stage));
	dt_as_jump(cx->as, BPF_JEQ, DT_R3, 0, skip);
	dt_as_jump(cx->as, BPF_JGT, DT_R3, (int32_t)nspec(cx), skip);
	EMIT(DT_ALU64_IMM(BPF_LSH, DT_R3, 3));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R3));
	EMIT(DT_STORE_IMM(BPF_DW, DT_R0, 0, 0));
	dt_as_place(cx->as, skip);
}

/* After the record is out: the speculations its commit() and discard()
 * end are free again. */
void dt_cg_spec_after_output(dt_cg_t *cx)
{
	for (int i = 0; i < cx->nacts; i++)
		if (cx->acts[i].kind == DT_ACT_COMMIT ||
		    cx->acts[i].kind == DT_ACT_DISCARD)
			spec_free(cx, i);
}
