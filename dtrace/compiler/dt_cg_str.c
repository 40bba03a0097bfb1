/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_str.c: strings and subroutines.
 *
 * A string value is a pointer to strsize readable bytes in a map value
 * (dt_cg_impl.h).  Subroutines that make a new string write it into a
 * string temporary of the mstate area (dt_cg_temp(), 2 * strsize bytes so
 * that a copy at a bounded offset, as strjoin does, stays inside it) and
 * return a pointer to it.  Copies go through bpf_probe_read_kernel_str,
 * which bounds and terminates them; comparisons through one word-compare
 * subprogram appended to the clause (dt_cg_subprograms).
 */
#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)

/* a = strcmp(a, b): negative, 0 or positive.  b may be r0. */
void dt_cg_strcmp(dt_cg_t *cx, int a, int b)
{
	if (cx->lbl_strcmp < 0)
		cx->lbl_strcmp = dt_as_label(cx->as);
	dt_cg_str_notnull(cx, a);
	dt_cg_str_notnull(cx, b);
	EMIT(DT_MOV64_REG(DT_R2, b));
	EMIT(DT_MOV64_REG(DT_R1, a));
	EMIT(DT_MOV64_REG(DT_R3, DT_R9));
	dt_as_call(cx->as, cx->lbl_strcmp);
	EMIT(DT_MOV64_REG(a, DT_R0));
}

/* Copy size bytes from src (a register) to mstate offset dst. */
static void emit_copy(dt_cg_t *cx, uint32_t dst, int src, int helper,
		      uint32_t size)
{
	EMIT(DT_MOV64_REG(DT_R1, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, (int32_t)dst));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)size));
	EMIT(DT_MOV64_REG(DT_R3, src));
	EMIT(DT_CALL_HELPER(helper));
}

/*
 * int strcmp(const char *r1, const char *r2, dt_mstate_t *r3)
 *
 * Both strings are copied, NUL padded, into the two comparison buffers of
 * the mstate; the buffers are then compared a word at a time, unrolled
 * (a byte loop would make the verifier walk strsize iterations per call).
 * The first differing words, byte-swapped to big endian, order the strings
 * as unsigned bytes.  The callee's r6..r8 are its own.
 */
static void emit_strcmp(dt_cg_t *cx)
{
	dt_as_t *as = cx->as;
	uint32_t ss = cx->st->strsize, room = cx->st->strroom;
	uint32_t ca = cx->st->off_cmp, cb = ca + room;
	int diff = dt_as_label(as), less = dt_as_label(as);

	dt_as_place(as, cx->lbl_strcmp);
	EMIT(DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(DT_MOV64_REG(DT_R7, DT_R2));
	EMIT(DT_MOV64_REG(DT_R8, DT_R3));
	/* pad: fill both buffers from the zero area, then copy the strings */
	EMIT(DT_MOV64_REG(DT_R4, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R4, (int32_t)cx->st->off_aggval));
	emit_copy(cx, ca, DT_R4, BPF_FUNC_probe_read_kernel, room);
	EMIT(DT_MOV64_REG(DT_R4, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R4, (int32_t)cx->st->off_aggval));
	emit_copy(cx, cb, DT_R4, BPF_FUNC_probe_read_kernel, room);
	emit_copy(cx, ca, DT_R6, BPF_FUNC_probe_read_kernel_str, ss);
	emit_copy(cx, cb, DT_R7, BPF_FUNC_probe_read_kernel_str, ss);
	for (uint32_t w = 0; w < room; w += 8) {
		EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R8, (int16_t)(ca + w)));
		EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R8, (int16_t)(cb + w)));
		dt_as_jump_reg(as, BPF_JNE, DT_R4, DT_R5, diff);
	}
	EMIT(DT_MOV64_IMM(DT_R0, 0));
	EMIT(DT_EXIT());
	dt_as_place(as, diff);
	EMIT(DT_INSN(BPF_ALU | BPF_END | BPF_TO_BE, DT_R4, 0, 0, 64));
	EMIT(DT_INSN(BPF_ALU | BPF_END | BPF_TO_BE, DT_R5, 0, 0, 64));
	EMIT(DT_MOV64_IMM(DT_R0, 1));
	dt_as_jump_reg(as, BPF_JLT, DT_R4, DT_R5, less);
	EMIT(DT_EXIT());
	dt_as_place(as, less);
	EMIT(DT_MOV64_IMM(DT_R0, -1));
	EMIT(DT_EXIT());
}

void dt_cg_subprograms(dt_cg_t *cx)
{
	if (cx->lbl_strcmp >= 0)
		emit_strcmp(cx);
}

/* Copy the user string at a (a kernel string in a clause of kernel probes
 * unless user) into a new temporary, at most size bytes with its NUL
 * (size_reg: a register with the limit, or -1 for strsize); a becomes the
 * string.  A bad address faults. */
static void copyinstr(dt_cg_t *cx, int a, int size_reg, bool user)
{
	uint32_t t = dt_cg_temp(cx);
	uint32_t ss = cx->st->strsize;

	if (size_reg >= 0) {
		int ok = dt_as_label(cx->as);
		EMIT(DT_MOV64_REG(DT_R2, size_reg));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));	/* room for NUL */
		dt_as_jump(cx->as, BPF_JLE, DT_R2, (int32_t)ss, ok);
		EMIT(DT_MOV64_IMM(DT_R2, (int32_t)ss));
		dt_as_place(cx->as, ok);
	} else {
		EMIT(DT_MOV64_IMM(DT_R2, (int32_t)ss));
	}
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)t, 0));
	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_REG(DT_R3, a));
	if (user)
		dt_cg_probe_read_user(cx, true);
	else
		dt_cg_probe_read(cx, true);
	dt_cg_fault_if(cx, BPF_JSLT, DT_R0, 0, DT_FAULT_BADADDR, a);
	/* the helper stops short of the NUL when size cuts the string */
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(t + ss - 1), 0));
	dt_cg_mst_ptr(cx, a, t);
}

static int cg_copyinstr(dt_cg_t *cx, dt_node_t *n)
{
	int a = dt_cg_expr(cx, n->args);

	if (n->args->next == NULL) {
		copyinstr(cx, a, -1, true);
		return a;
	}
	int s = dt_cg_expr(cx, n->args->next);
	EMIT(DT_MOV64_REG(DT_R0, s));
	dt_regs_give(cx, s);
	/* r0 survives the reload of a, if a was spilled */
	copyinstr(cx, a, DT_R0, true);
	return a;
}

/* The temporary at mstate offset t holds size bytes of D scratch memory
 * from here to the clause's end: its room, rounded up to 8 bytes as
 * DTrace aligns scratch allocations, may be read and written through
 * pointers (dt_cg_scratch_ptr(), dt_cg_probe_read_user()). */
static void scratch_take(dt_cg_t *cx, uint32_t t, uint32_t size)
{
	dt_cg_span_add(&cx->scratch, t, (size + 7) & ~7u);
	cx->temps_kept = cx->ntemps;
}

/* copyin(addr, size): a copy of size bytes of user memory in a new
 * temporary (the checker bounds size by its 2 * strsize); the result
 * points there, and reads through it go to the copy (dt_cg_probe_read). */
static int cg_copyin(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t t = dt_cg_temp(cx);
	int a = dt_cg_expr(cx, n->args);

	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)n->args->next->ival));
	EMIT(DT_MOV64_REG(DT_R3, a));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_user));
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, a);
	dt_cg_mst_ptr(cx, a, t);
	scratch_take(cx, t, (uint32_t)n->args->next->ival);
	return a;
}

/* D scratch memory (a copyin() or alloca() result) is string temporaries
 * of the mstate, those the clause took so far (cx->scratch): addr,
 * a plain address, becomes a pointer into them the verifier accepts (r9
 * plus an offset checked into [lo, hi - size], inside the temporaries),
 * when size bytes there lie inside them; anything else faults as an
 * invalid address, addr's.  Uses r0 and r5. */
void dt_cg_scratch_ptr(dt_cg_t *cx, int addr, uint32_t size)
{
	uint32_t lo = cx->scratch.lo, hi = cx->scratch.hi;

	dt_cg_mst_offset(cx, DT_R0, addr);
	if (hi - lo < size) {	/* no room: an offset faults, any */
		dt_cg_fault_if(cx, BPF_JGE, DT_R0, 0, DT_FAULT_BADADDR, addr);
		return;
	}
	dt_cg_fault_if(cx, BPF_JLT, DT_R0, (int32_t)lo, DT_FAULT_BADADDR,
		       addr);
	dt_cg_fault_if(cx, BPF_JGT, DT_R0, (int32_t)(hi - size),
		       DT_FAULT_BADADDR, addr);
	EMIT(DT_MOV64_REG(addr, DT_R9));
	EMIT(DT_ALU64_REG(BPF_ADD, addr, DT_R0));
}

/* The read of a copy into scratch memory, r1 and r2 set: from src (a
 * string's bytes, in BPF memory, or user or scratch memory); a read that
 * fails faults, src's address. */
static void copy_read(dt_cg_t *cx, int src, bool str)
{
	EMIT(DT_MOV64_REG(DT_R3, src));
	if (str)
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	else
		dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, src);
}

/* Copy size bytes at src (user memory, D scratch memory, or a string's
 * bytes, of which strsize are readable) to dest, which must be D scratch
 * memory with room for size bytes.  The value is 0, the statement only
 * matters for its effect. */
static int copy_into(dt_cg_t *cx, dt_node_t *src, uint32_t size,
		     dt_node_t *dest)
{
	bool str = dt_check_is_string(src->type);
	int a = dt_cg_expr(cx, src);
	int d = dt_cg_expr(cx, dest);

	dt_cg_scratch_ptr(cx, d, size);
	EMIT(DT_MOV64_REG(DT_R1, d));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)(str && size > cx->st->strsize ?
					   cx->st->strsize : size)));
	copy_read(cx, a, str);
	dt_regs_give(cx, d);
	EMIT(DT_MOV64_IMM(a, 0));
	return a;
}

/* copyinto(addr, size, dest) */
static int cg_copyinto(dt_cg_t *cx, dt_node_t *n)
{
	return copy_into(cx, n->args, (uint32_t)n->args->next->ival,
			 n->args->next->next);
}

/*
 * bcopy() of a size known when the program runs: dest and dest + size
 * must lie in the clause's scratch memory, else the copy faults (an
 * invalid address, dest's).  The verifier, which cannot relate the two,
 * checks the copy's end as the farthest dest plus the largest size: the
 * mstate keeps that much room after the scratch memory (this_size).
 */
static int copy_into_variable(dt_cg_t *cx, dt_node_t *src, dt_node_t *size,
			      dt_node_t *dest)
{
	uint32_t lo = cx->scratch.lo, hi = cx->scratch.hi, room = hi - lo;
	bool str = dt_check_is_string(src->type);
	int a = dt_cg_expr(cx, src);
	int d = dt_cg_expr(cx, dest);
	int n = dt_cg_expr(cx, size);

	if (cx->st->this_size < room)
		cx->st->this_size = room;
	dt_cg_fault_if(cx, BPF_JGT, n, (int32_t)room, DT_FAULT_BADADDR, d);
	dt_cg_mst_offset(cx, DT_R0, d);
	dt_cg_fault_if(cx, BPF_JLT, DT_R0, (int32_t)lo, DT_FAULT_BADADDR, d);
	dt_cg_fault_if(cx, BPF_JGT, DT_R0, (int32_t)hi, DT_FAULT_BADADDR, d);
	EMIT(DT_MOV64_REG(DT_R5, DT_R0));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R5, n));
	dt_cg_fault_if(cx, BPF_JGT, DT_R5, (int32_t)hi, DT_FAULT_BADADDR, d);
	EMIT(DT_MOV64_REG(DT_R1, DT_R9));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	EMIT(DT_MOV64_REG(DT_R2, n));
	if (str) {	/* a string has strsize readable bytes */
		int fits = dt_as_label(cx->as);

		dt_as_jump(cx->as, BPF_JLE, DT_R2, (int32_t)cx->st->strsize,
			   fits);
		EMIT(DT_MOV64_IMM(DT_R2, (int32_t)cx->st->strsize));
		dt_as_place(cx->as, fits);
	}
	copy_read(cx, a, str);
	dt_regs_give(cx, n);
	dt_regs_give(cx, d);
	EMIT(DT_MOV64_IMM(a, 0));
	return a;
}

/* bcopy(src, dest, size) */
static int cg_bcopy(dt_cg_t *cx, dt_node_t *n)
{
	dt_node_t *size = n->args->next->next;

	if (!size->is_const)
		return copy_into_variable(cx, n->args, size, n->args->next);
	return copy_into(cx, n->args, (uint32_t)size->ival, n->args->next);
}

/* alloca(0): where the next allocation would start, taking no room: two
 * in a row are equal, as in DTrace; a load or store through it faults. */
static int alloca_empty(dt_cg_t *cx)
{
	uint32_t kept = cx->temps_kept > cx->ntemps ? cx->temps_kept
						    : cx->ntemps;
	int reg = dt_regs_take(cx);

	dt_cg_mst_ptr(cx, reg, cx->st->off_temps +
				kept * 2 * cx->st->strroom);
	return reg;
}

/* alloca(size) of a size known when the program runs, or too large for
 * a temporary: a whole temporary (2 * strsize bytes), zeroed; a larger
 * size faults, out of scratch space, as DTrace's does. */
static int alloca_variable(dt_cg_t *cx, dt_node_t *size)
{
	uint32_t room = 2 * cx->st->strsize;
	int n = dt_cg_expr(cx, size);
	uint32_t t = dt_cg_temp(cx);

	dt_cg_fault_if(cx, BPF_JGT, n, (int32_t)room, DT_FAULT_NOSCRATCH, n);
	for (uint32_t off = 0; off < room; off += 8)
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(t + off), 0));
	dt_cg_mst_ptr(cx, n, t);
	scratch_take(cx, t, room);
	return n;
}

/* alloca(size): size bytes of D scratch memory, zeroed, in string
 * temporaries kept to the end of the clause (as copyin()'s result). */
static int cg_alloca(dt_cg_t *cx, dt_node_t *n)
{
	if (!n->args->is_const || n->args->ival > 2 * cx->st->strsize)
		return alloca_variable(cx, n->args);
	if (n->args->ival == 0)
		return alloca_empty(cx);

	uint32_t size = (uint32_t)n->args->ival, t = dt_cg_temp(cx);
	int reg = dt_regs_take(cx);

	for (uint32_t off = 0; off < size; off += 8)
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(t + off), 0));
	dt_cg_mst_ptr(cx, reg, t);
	scratch_take(cx, t, size);
	return reg;
}

/* stringof(x) and (string)x: a string stays; a pointer is read as a user
 * string (a kernel one in a clause of kernel probes), a char[N] as at most
 * its N characters. */
static int cg_stringof(dt_cg_t *cx, dt_node_t *x)
{
	int a = dt_cg_expr(cx, x);

	if (dt_sou_rooted(x) && x->type->kind == DT_TK_ARRAY) {
		dt_sou_stringof(cx, a, x->type->size);	/* BPF memory */
		return a;
	}
	if (x->type->kind == DT_TK_ARRAY && x->type->size > 0 &&
	    x->type->size < cx->st->strsize) {
		EMIT(DT_MOV64_IMM(DT_R0, (int32_t)x->type->size));
		copyinstr(cx, a, DT_R0, false);
	} else if (!dt_check_is_string(x->type)) {
		copyinstr(cx, a, -1, false);
	}
	return a;
}

static int cg_strlen(dt_cg_t *cx, dt_node_t *n)
{
	int a = dt_cg_expr(cx, n->args);

	dt_cg_str_notnull(cx, a);
	dt_cg_strlen(cx, a, a);
	return a;
}

/*
 * strjoin(a, b): built in the comparison buffer (2 * strsize bytes, free
 * once both operands are evaluated), then copied into the temporary at
 * the level where the call started.  The operands' own temporaries are
 * dead by then, so a nest of strjoin() calls needs about one temporary
 * per level of the left operand only, not one per call.  The result is
 * cut at strsize - 1 characters, as DTrace's.
 */
static int cg_strjoin(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t ss = cx->st->strsize, buf = cx->st->off_cmp;
	uint32_t mark = cx->ntemps;
	int16_t bslot = (int16_t)DT_FRAME_LOOP_SLOT(0);
	int a = dt_cg_expr(cx, n->args);
	int fits = dt_as_label(cx->as);

	dt_cg_str_notnull(cx, a);
	int b = dt_cg_expr(cx, n->args->next);
	dt_cg_str_notnull(cx, b);
	/* b waits on the stack while a, maybe spilled meanwhile, comes back */
	EMIT(DT_STORE(BPF_DW, DT_FP, bslot, b));
	dt_regs_give(cx, b);
	dt_cg_str_copy(cx, a, a, buf);			/* a = its length */
	EMIT(DT_MOV64_REG(DT_R4, a));
	dt_as_jump(cx->as, BPF_JLE, DT_R4, (int32_t)(ss - 1), fits);
	EMIT(DT_MOV64_IMM(DT_R4, (int32_t)(ss - 1)));
	dt_as_place(cx->as, fits);
	dt_cg_mst_ptr(cx, DT_R1, buf);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R4));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)ss));
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_FP, bslot));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(buf + ss - 1), 0));
	/* into the first temporary the operands may have used */
	if (cx->ntemps > mark)
		cx->ntemps = mark;
	uint32_t t = dt_cg_temp(cx);
	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)ss));
	dt_cg_mst_ptr(cx, DT_R3, buf);
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	dt_cg_mst_ptr(cx, a, t);
	return a;
}

int dt_cg_subr(dt_cg_t *cx, dt_node_t *n)
{
	if (n->kind == DT_N_UNARY || n->kind == DT_N_CAST)
		return cg_stringof(cx, n->l);
	const dt_funcinfo_t *fi = dt_func_lookup(n->name);
	int a;

	switch (fi->func) {
	case DT_F_COPYINSTR:
		return cg_copyinstr(cx, n);
	case DT_F_COPYIN:
		return cg_copyin(cx, n);
	case DT_F_COPYINTO:
		return cg_copyinto(cx, n);
	case DT_F_BCOPY:
		return cg_bcopy(cx, n);
	case DT_F_ALLOCA:
		return cg_alloca(cx, n);
	case DT_F_STRINGOF:
		return cg_stringof(cx, n->args);
	case DT_F_STRLEN:
		return cg_strlen(cx, n);
	case DT_F_STRJOIN:
		return cg_strjoin(cx, n);
	case DT_F_RAND:
		EMIT(DT_CALL_HELPER(BPF_FUNC_get_prandom_u32));
		a = dt_regs_take(cx);
		dt_cg_movsx(cx, a, DT_R0, 32);
		return a;
	default:
		return dt_cg_subr_more(cx, n, fi->func);
	}
}
