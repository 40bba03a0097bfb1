/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_xlate.c: the code of a whole translated struct (xlate <T> (e) as a
 * value), which the checker made into a hidden this-> variable (x->ident)
 * and the checked expressions of its members (x->args, each a cast named
 * by its member: dt_check_xlate.c).
 */
#include "dt_cg_impl.h"
#include "dt_cg_xlate.h"

int dt_xlate_cg(dt_cg_t *cx, dt_node_t *x)
{
	uint32_t off = x->ident->offset;
	dt_type_t *out = x->ctype->kind == DT_TK_PTR ? x->ctype->base :
			 x->ctype;

	for (uint32_t i = 0; i < out->size; i += 8)
		dt_cg_emit(cx, DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(off + i),
					    0));
	for (dt_node_t *c = x->args; c != NULL; c = c->next) {
		dt_member_t *m = dt_type_member(out, c->name);
		uint64_t size = m->type->kind == DT_TK_PTR ? 8 : m->type->size;
		int op = size == 1 ? BPF_B : size == 2 ? BPF_H :
			 size == 4 ? BPF_W : BPF_DW;
		int r = dt_cg_expr(cx, c);

		if (m->bit_size != 0) {	/* its bits of its unit */
			dt_cg_emit(cx, DT_MOV64_REG(DT_R2, DT_R9));
			dt_cg_emit(cx, DT_ALU64_IMM(BPF_ADD, DT_R2,
						    (int32_t)(off + m->offset)));
			dt_cg_bitfield_store(cx, DT_R2, r, m);
		} else {
			dt_cg_emit(cx, DT_STORE(op, DT_R9,
						(int16_t)(off + m->offset), r));
		}
		dt_regs_give(cx, r);
	}
	dt_cg_span_add(&cx->st->xlated, off, (uint32_t)out->size);
	int reg = dt_regs_take(cx);
	dt_cg_mst_ptr(cx, reg, off);
	return reg;
}
