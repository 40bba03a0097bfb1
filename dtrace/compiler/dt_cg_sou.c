/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_sou.c: struct, union and array variables, stored by value.
 *
 *	struct coords c;  self struct coords s;  int a[4];
 *	struct coords m[int];	this->c = *p;	c.x = 1;  m[k].y;  a[i] = 2;
 *
 * Such a variable takes its type's size (rounded up to 8) wherever a
 * variable lives (dt_cg_var.c): a slot of the globals or the mstate, or
 * the value of its map.  Its value, as an expression, is its address;
 * its members and elements are read and written right there, with the
 * loads and stores of their size: the address is BPF memory (a map value
 * or the mstate), which the verifier follows, never user memory.
 *
 * A map-backed variable's element that does not exist reads as zeros
 * (the "souzero" map, as large as the largest such variable); writing a
 * member of one, or the whole of it, creates it first, from those zeros.
 * A whole assignment copies the value: from user memory (`*p`, with a
 * fault on a bad address, or the kernel's at kernel probes) or from
 * another such variable.  A whole struct, union or array stored through
 * a pointer (`*p = s`, `p->inner = s.inner`) is copied the same way, to
 * D scratch memory only, as every store through a pointer
 * (dt_cg_scratch_lvalue()).  An array index is checked at run time: one
 * past the end faults as a bad address.  A bit-field is read from its
 * unit (dt_member_unit_size()) by two shifts, and written by a read of
 * the unit, its bits replaced, and a write back: its neighbours keep
 * theirs.
 */
#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
#define ERR(cx, tag, n, ...) dt_pcb_error((cx)->pcb, tag, (n)->line, __VA_ARGS__)

dtrace_map_t *dt_sou_zero_map(dt_cg_state_t *st, uint32_t size)
{
	dtrace_map_t *m = dt_cg_map(st, "souzero", BPF_MAP_TYPE_ARRAY, 4,
				    size, 1);

	if (m->vsize < size)
		m->vsize = size;
	return m;
}

/* ---- addresses ---- */

/* reg = the address of map-backed variable id's element of keys,
 * created from zeros when absent; a full map counts a drop and ends the
 * clause, as a dynamic variable that cannot be stored does. */
static int element_for_write(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys)
{
	int found = dt_as_label(cx->as), drop = dt_as_label(cx->as);
	uint32_t key = cx->st->off_key + (uint32_t)cx->key_level *
		       cx->st->key_max;

	dt_cg_key(cx, keys, id->kind == DT_IK_SELF ? DT_KEY_TID : DT_KEY_PLAIN,
		  id->ksize);
	dt_as_load_map(cx->as, DT_R1, id->map);
	dt_cg_mst_ptr(cx, DT_R2, key);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, found);
	dt_cg_array_value(cx, dt_sou_zero_map(cx->st, id->vsize), cx->lbl_end);
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
	dt_as_load_map(cx->as, DT_R1, id->map);
	dt_cg_mst_ptr(cx, DT_R2, key);
	EMIT(DT_MOV64_IMM(DT_R4, BPF_NOEXIST));
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_update_elem));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, drop);
	dt_as_load_map(cx->as, DT_R1, id->map);
	dt_cg_mst_ptr(cx, DT_R2, key);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, found);
	dt_as_place(cx->as, drop);
	dt_cg_count_drop(cx, offsetof(dt_cpuinfo_t, dyn_drops));
	dt_as_jump(cx->as, BPF_JA, 0, 0, cx->lbl_end);
	dt_as_place(cx->as, found);
	int reg = dt_regs_take(cx);
	EMIT(DT_MOV64_REG(reg, DT_R0));
	return reg;
}

/* reg = the address of variable node n, for a write when write. */
static int var_addr(dt_cg_t *cx, dt_node_t *n, bool write)
{
	dt_ident_t *id = n->ident;
	dt_node_t *keys = n->kind == DT_N_INDEX ? n->args : NULL;

	if (write && (id->kind == DT_IK_SELF || id->nkeys >= 0))
		return element_for_write(cx, id, keys);
	return dt_cg_var_load(cx, id, keys);	/* the address of a sou */
}

/* reg = the address of n, a part of a struct, union or array variable. */
static int sou_addr(dt_cg_t *cx, dt_node_t *n, bool write)
{
	if (dt_sou_is_var(n))
		return var_addr(cx, n, write);
	if (n->kind == DT_N_MEMBER) {
		int reg = sou_addr(cx, n->l, write);
		dt_member_t *m = dt_type_member(n->l->type, n->name);
		if (m->offset != 0)
			EMIT(DT_ALU64_IMM(BPF_ADD, reg, (int32_t)m->offset));
		return reg;
	}
	const dt_type_t *at = n->l->type;
	int reg = sou_addr(cx, n->l, write);
	int i = dt_cg_expr(cx, n->args);
	dt_cg_fault_if(cx, BPF_JGE, i, (int32_t)at->nelems, DT_FAULT_BADADDR,
		       i);
	EMIT(DT_MOV64_REG(DT_R0, i));
	dt_regs_give(cx, i);
	if (at->base->size != 1)
		EMIT(DT_ALU64_IMM(BPF_MUL, DT_R0, (int32_t)at->base->size));
	EMIT(DT_ALU64_REG(BPF_ADD, reg, DT_R0));
	return reg;
}

static int size_op(uint64_t size)
{
	return size == 1 ? BPF_B : size == 2 ? BPF_H : size == 4 ? BPF_W :
	       BPF_DW;
}

/* The type a scalar member is loaded and stored as. */
static uint64_t scalar_size(dt_cg_t *cx, const dt_type_t *t)
{
	uint64_t size = t->kind == DT_TK_PTR ? 8 : t->size;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		dt_cg_ice(cx, "member of an odd size");
	return size;
}

int dt_sou_lvalue(dt_cg_t *cx, dt_node_t *n)
{
	if (!dt_sou_rooted(n))
		return dt_cg_scratch_lvalue(cx, n);
	return sou_addr(cx, n, true);
}

int dt_sou_addr(dt_cg_t *cx, dt_node_t *n)
{
	return sou_addr(cx, n, false);
}

void dt_sou_load_at(dt_cg_t *cx, int dst, int addr, const dt_type_t *t)
{
	uint64_t size = scalar_size(cx, t);

	EMIT(DT_LOAD(size_op(size), dst, addr, 0));
	if (dt_type_is_integer(t) && t->is_signed && size < 8)
		dt_cg_movsx(cx, dst, dst, (int)size * 8);
}

void dt_sou_store_at(dt_cg_t *cx, int addr, int v, const dt_type_t *t)
{
	EMIT(DT_STORE(size_op(scalar_size(cx, t)), addr, 0, v));
}

void dt_cg_bitfield_value(dt_cg_t *cx, int reg, const dt_member_t *m)
{
	int above = 64 - m->bit_offset - m->bit_size;

	if (above != 0)
		EMIT(DT_ALU64_IMM(BPF_LSH, reg, above));
	if (m->bit_size < 64)
		EMIT(DT_ALU64_IMM(m->type->is_signed ? BPF_ARSH : BPF_RSH, reg,
				  64 - m->bit_size));
}

/* r0 and r1 are the scratch: no pool register is taken, which would
 * spill addr or v. */
void dt_cg_bitfield_store(dt_cg_t *cx, int addr, int v, const dt_member_t *m)
{
	int op = size_op(dt_member_unit_size(m));
	uint64_t ones = m->bit_size < 64 ? (1ULL << m->bit_size) - 1 : ~0ULL;

	EMIT(DT_LOAD(op, DT_R1, addr, 0));
	dt_as_ld_imm64(cx->as, DT_R0, ~(ones << m->bit_offset));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R1, DT_R0));
	EMIT(DT_MOV64_REG(DT_R0, v));
	if (m->bit_size < 64)
		EMIT(DT_ALU64_IMM(BPF_LSH, DT_R0, 64 - m->bit_size));
	if (64 - m->bit_size - m->bit_offset != 0)
		EMIT(DT_ALU64_IMM(BPF_RSH, DT_R0,
				  64 - m->bit_size - m->bit_offset));
	EMIT(DT_ALU64_REG(BPF_OR, DT_R1, DT_R0));
	EMIT(DT_STORE(op, addr, 0, DT_R1));
}

void dt_sou_load_lvalue(dt_cg_t *cx, int dst, int addr, const dt_node_t *n)
{
	if (!dt_node_is_bitfield(n)) {
		dt_sou_load_at(cx, dst, addr, n->type);
		return;
	}
	EMIT(DT_LOAD(size_op(dt_member_unit_size(n->member)), dst, addr, 0));
	dt_cg_bitfield_value(cx, dst, n->member);
}

void dt_sou_store_lvalue(dt_cg_t *cx, int addr, int v, const dt_node_t *n)
{
	if (dt_node_is_bitfield(n))
		dt_cg_bitfield_store(cx, addr, v, n->member);
	else
		dt_sou_store_at(cx, addr, v, n->type);
}

int dt_sou_value(dt_cg_t *cx, dt_node_t *n)
{
	int reg = sou_addr(cx, n, false);
	const dt_type_t *t = n->type;

	if (dt_node_is_bitfield(n)) {
		dt_sou_load_lvalue(cx, reg, reg, n);
		return reg;
	}

	/* a string member, as a string variable, is read where it lies */
	if (!dt_sou_type(t) && t->kind != DT_TK_STRING)
		dt_sou_load_at(cx, reg, reg, t);
	return reg;
}

void dt_sou_stringof(dt_cg_t *cx, int a, uint64_t size)
{
	uint32_t t = dt_cg_temp(cx), ss = cx->st->strsize;
	uint32_t n = size + 1 < ss ? (uint32_t)size + 1 : ss;

	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)n));
	EMIT(DT_MOV64_REG(DT_R3, a));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(t + n - 1), 0));
	dt_cg_mst_ptr(cx, a, t);
}

/* ---- stores ---- */

/* Emit: copy size bytes from the address in src (BPF memory when
 * src_bpf, else the traced memory) to the address in dst. */
static void copy_value(dt_cg_t *cx, int dst, int src, bool src_bpf,
		       uint64_t size)
{
	EMIT(DT_MOV64_REG(DT_R1, dst));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)size));
	EMIT(DT_MOV64_REG(DT_R3, src));
	if (src_bpf)
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	else
		dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, src);
}

void dt_sou_copy_to_mst(dt_cg_t *cx, uint32_t off, int v, const dt_node_t *n,
			uint32_t size)
{
	dt_cg_mst_ptr(cx, DT_R1, off);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)size));
	EMIT(DT_MOV64_REG(DT_R3, v));
	if (dt_sou_rooted(n))
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	else
		dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, v);
}

/* Emit: variable lhs (a whole struct or union variable) = 0: a
 * thread-local or an associative array's element is deleted, a global or
 * a clause-local is cleared; either reads as zeros after. */
static void clear_var(dt_cg_t *cx, dt_node_t *lhs)
{
	dt_ident_t *id = lhs->ident;
	dt_node_t *keys = lhs->kind == DT_N_INDEX ? lhs->args : NULL;

	if (id->kind == DT_IK_SELF || id->nkeys >= 0) {
		dt_cg_var_delete(cx, id, keys);
		return;
	}
	int d = dt_cg_var_load(cx, id, NULL);	/* its slot's address */
	uint32_t room = dt_var_slot_size(cx->st, id->type);
	for (uint32_t i = 0; i < room; i += 8)
		EMIT(DT_STORE_IMM(BPF_DW, d, (int16_t)i, 0));
	dt_regs_give(cx, d);
}

void dt_sou_store_var(dt_cg_t *cx, dt_node_t *lhs, int v, dt_node_t *r)
{
	int d = dt_sou_lvalue(cx, lhs);	/* through a pointer: scratch */

	copy_value(cx, d, v, dt_sou_rooted(r), lhs->type->size);
	dt_regs_give(cx, d);
}

/* Emit: copy string v into member m (a DT_N_MEMBER of a variable), cut
 * to the member's room; a NULL string leaves it empty (the helper clears
 * what it cannot read). */
static void store_string_member(dt_cg_t *cx, dt_node_t *m, int v)
{
	const dt_member_t *mem = dt_type_member(m->l->type, m->name);
	int d = dt_sou_lvalue(cx, m);

	EMIT(DT_MOV64_REG(DT_R1, d));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)mem->str_room));
	EMIT(DT_MOV64_REG(DT_R3, v));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	dt_regs_give(cx, d);
}

int dt_sou_assign(dt_cg_t *cx, dt_node_t *n)
{
	int v = dt_cg_expr(cx, n->r);
	const dt_type_t *t = n->l->type;

	if (dt_sou_type(t) && !dt_sou_type(n->r->type)) {
		clear_var(cx, n->l);	/* = 0 (dt_check.c) */
		return v;
	}
	if (dt_sou_type(t)) {
		dt_sou_store_var(cx, n->l, v, n->r);
		return v;
	}
	if (t->kind == DT_TK_STRING) {
		store_string_member(cx, n->l, v);
		return v;
	}
	dt_cg_convert(cx, v, n->r->type, t);
	int d = dt_sou_lvalue(cx, n->l);
	dt_sou_store_lvalue(cx, d, v, n->l);
	dt_regs_give(cx, d);
	return v;	/* as in DTrace, a bit-field's too: not cut to it */
}
