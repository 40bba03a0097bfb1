/* SPDX-License-Identifier: MIT */
/*
 * dt_regs.c: the value register pool of a clause, r6..r8, with spilling.
 *
 * Registers are taken and given back in strict LIFO pairs, as expression
 * evaluation nests.  When all three are busy, take() spills the oldest live
 * value to the next spill slot of the frame (DT_FRAME_SPILL) and hands its
 * register out; give() of that register reloads the spilled value, so by
 * the time the older owner uses its register again the value is back.  The
 * spill slots are used LIFO as well and are disjoint from everything else on
 * the stack (dt_cg_impl.h), so spills cannot collide with staging.
 */
#include "dt_cg_impl.h"

static const int dt_pool[DT_REGS_NPOOL] = { DT_R6, DT_R7, DT_R8 };

void dt_regs_init(dt_regs_t *rs)
{
	memset(rs, 0, sizeof(*rs));
}

/*
 * At the start of a clause, give every pool register a value.  An owner
 * may take its register ahead of writing it (the result register of ?:,
 * && and || is taken before their operands are evaluated), and an operand
 * needing the whole pool then spills that still-unwritten register: the
 * verifier refuses a store from a register never written ("R6 !read_ok").
 * Defined from the prologue on, every pool register can be spilled at any
 * point, whatever the order in which its owner takes and writes it.
 */
void dt_regs_prologue(dt_cg_t *cx)
{
	for (int i = 0; i < DT_REGS_NPOOL; i++)
		dt_cg_emit(cx, DT_MOV64_IMM(dt_pool[i], 0));
}

static int regs_free_reg(dt_regs_t *rs)
{
	for (int i = 0; i < DT_REGS_NPOOL; i++)
		if (!rs->busy[dt_pool[i]])
			return dt_pool[i];
	return -1;
}

/* The oldest entry whose value is still in its register. */
static int regs_victim(dt_regs_t *rs)
{
	for (int i = 0; i < rs->n; i++)
		if (rs->ent[i].slot < 0)
			return i;
	return -1;
}

int dt_regs_take(dt_cg_t *cx)
{
	dt_regs_t *rs = &cx->rs;
	int restores = -1;

	if (rs->n >= DT_REGS_MAXLIVE)
		dt_pcb_error(cx->pcb, D_STACK_SIZE, 0,
			     "expression too complex");
	int reg = regs_free_reg(rs);
	if (reg < 0) {
		int v = regs_victim(rs);
		if (v < 0)
			dt_cg_ice(cx, "no register to spill");
		if (rs->nslots >= DT_REGS_NSPILL)
			dt_pcb_error(cx->pcb, D_STACK_SIZE, 0,
				     "expression too complex");
		reg = rs->ent[v].reg;
		rs->ent[v].slot = rs->nslots++;
		dt_cg_emit(cx, DT_STORE(BPF_DW, DT_FP,
					DT_FRAME_SPILL(rs->ent[v].slot), reg));
		restores = v;
	}
	rs->busy[reg] = true;
	rs->ent[rs->n].reg = reg;
	rs->ent[rs->n].slot = -1;
	rs->ent[rs->n].restores = restores;
	rs->n++;
	return reg;
}

void dt_regs_give(dt_cg_t *cx, int reg)
{
	dt_regs_t *rs = &cx->rs;

	if (rs->n == 0 || rs->ent[rs->n - 1].reg != reg ||
	    rs->ent[rs->n - 1].slot >= 0)
		dt_cg_ice(cx, "registers given back out of order");
	int r = rs->ent[--rs->n].restores;
	if (r < 0) {
		rs->busy[reg] = false;
		return;
	}
	/* Reload the value this register held before it was lent out. */
	rs->nslots--;
	dt_cg_emit(cx, DT_LOAD(BPF_DW, reg, DT_FP,
			       DT_FRAME_SPILL(rs->ent[r].slot)));
	rs->ent[r].slot = -1;
}

bool dt_regs_give_reloads(const dt_cg_t *cx, int reg)
{
	const dt_regs_t *rs = &cx->rs;

	return rs->n > 0 && rs->ent[rs->n - 1].reg == reg &&
	       rs->ent[rs->n - 1].restores >= 0;
}

void dt_regs_check(dt_cg_t *cx, int reg)
{
	dt_regs_t *rs = &cx->rs;

	for (int i = rs->n - 1; i >= 0; i--)
		if (rs->ent[i].reg == reg) {
			if (rs->ent[i].slot < 0)
				return;
			break;
		}
	dt_cg_ice(cx, "use of a spilled register");
}
