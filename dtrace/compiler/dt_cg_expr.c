/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_expr.c: code generation of D expressions.
 *
 * dt_cg_expr() emits the code of one checked expression and returns the
 * pool register (dt_regs.c) that holds its value, represented as
 * dt_cg_impl.h describes.  The caller gives the register back.
 *
 * Discipline that keeps spilling correct: a register whose value was
 * evaluated first may be lent out (spilled) while a later operand is
 * evaluated, and comes back only when that operand's register is given
 * back.  So every binary construct moves its right operand to the scratch
 * register r0, gives the operand's register back, and only then combines
 * with the left one.  r0..r5 never hold a value across dt_cg_expr().
 */
#include <string.h>

#include "dt_cg_impl.h"
#include "dt_cg_xlate.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
/* cpu v4 sign-extending move and signed division/modulo (off = 1) */

static bool is_sou_or_array(const dt_type_t *t)
{
	return t->kind == DT_TK_STRUCT || t->kind == DT_TK_UNION ||
	       t->kind == DT_TK_ARRAY || dt_type_is_wide_float(t);
}

/* Normalize reg, holding a value of integer type from, to type to. */
void dt_cg_convert(dt_cg_t *cx, int reg, const dt_type_t *from,
		   const dt_type_t *to)
{
	if (!dt_type_is_integer(to) || to->size >= 8)
		return;
	if (dt_type_is_integer(from) && from->size < to->size &&
	    (!from->is_signed || to->is_signed))
		return;		/* the value fits as it is */
	if (dt_type_is_integer(from) && from->size == to->size &&
	    from->is_signed == to->is_signed)
		return;
	if (to->is_signed) {
		dt_cg_movsx(cx, reg, reg, (int)to->size * 8);
	} else if (to->size == 4) {
		EMIT(DT_MOV32_REG(reg, reg));
	} else {
		EMIT(DT_ALU64_IMM(BPF_AND, reg, to->size == 1 ? 0xff : 0xffff));
	}
}

static void load_imm(dt_cg_t *cx, int reg, uint64_t v)
{
	if ((int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX)
		EMIT(DT_MOV64_IMM(reg, (int32_t)v));
	else
		dt_as_ld_imm64(cx->as, reg, v);
}

/* ---- string literals ---- */

static uint32_t strtab_add(dt_cg_state_t *st, const char *s, size_t len)
{
	for (uint32_t off = 0; off < st->strtab_len;
	     off += (uint32_t)strlen(st->strtab + off) + 1)
		if (strlen(st->strtab + off) == len &&
		    memcmp(st->strtab + off, s, len) == 0)
			return off;
	if (st->strtab_len + len + 1 > st->strtab_cap) {
		st->strtab_cap = (st->strtab_cap + (uint32_t)len + 1) * 2;
		st->strtab = dt_realloc(st->strtab, st->strtab_cap);
	}
	uint32_t off = st->strtab_len;
	memcpy(st->strtab + off, s, len);
	st->strtab[off + len] = '\0';
	st->strtab_len += (uint32_t)len + 1;
	return off;
}

static int cg_string(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t off = strtab_add(cx->st, n->str, n->slen);

	/* "strtab" is sized to hold every literal plus a string's room
	 * (strroom), so a copy of a whole string room from any literal (a
	 * variable's store) stays inside the value. */
	dt_cg_array_value(cx, dt_cg_map(cx->st, "strtab", BPF_MAP_TYPE_ARRAY,
					4, 0, 1), cx->lbl_end);
	int reg = dt_regs_take(cx);
	EMIT(DT_MOV64_REG(reg, DT_R0));
	if (off != 0)
		EMIT(DT_ALU64_IMM(BPF_ADD, reg, (int32_t)off));
	return reg;
}

/* ---- user memory ---- */

/* reg = the sz bytes (1, 2, 4 or 8) at reg in user memory, an integer
 * sign-extended when is_signed, through bpf_probe_read_user into the
 * scratch area; a fault reports the address. */
static void load_user_bytes(dt_cg_t *cx, int reg, int sz, bool is_signed)
{
	uint32_t scr = cx->st->off_scratch + 16;
	int bsz = sz == 1 ? BPF_B : sz == 2 ? BPF_H : sz == 4 ? BPF_W : BPF_DW;

	if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
		dt_cg_ice(cx, "load of an odd-sized scalar");
	dt_cg_mst_ptr(cx, DT_R1, scr);
	EMIT(DT_MOV64_IMM(DT_R2, sz));
	EMIT(DT_MOV64_REG(DT_R3, reg));
	dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, reg);
	EMIT(DT_LOAD(bsz, reg, DT_R9, (int16_t)scr));
	if (is_signed && sz < 8)
		dt_cg_movsx(cx, reg, reg, sz * 8);
}

/* reg = *(type *)reg in user memory (load_user_bytes()). */
static void load_user(dt_cg_t *cx, int reg, const dt_type_t *t)
{
	load_user_bytes(cx, reg, t->kind == DT_TK_PTR ? 8 : (int)t->size,
			t->is_signed);
}

/* The bytes of bit-field n's unit, at the user address in reg: reg = the
 * field's value. */
static void load_user_bitfield(dt_cg_t *cx, int reg, const dt_node_t *n)
{
	load_user_bytes(cx, reg, (int)dt_member_unit_size(n->member), false);
	dt_cg_bitfield_value(cx, reg, n->member);
}

static int cg_addr(dt_cg_t *cx, dt_node_t *n);
static int cg_helper_value(dt_cg_t *cx, int helper);

/* bpf_probe_read_kernel() of size bytes at src_reg + off into the
 * mstate's scratch word, whose offset it returns (r0: the helper's
 * result). */
static uint32_t read_kernel_scratch(dt_cg_t *cx, int src_reg, int32_t off,
				    int size)
{
	uint32_t scr = cx->st->off_scratch + 16;

	dt_cg_mst_ptr(cx, DT_R1, scr);
	EMIT(DT_MOV64_IMM(DT_R2, size));
	EMIT(DT_MOV64_REG(DT_R3, src_reg));
	if (off != 0)
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, off));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	return scr;
}

/* Read size bytes of kernel memory at src_reg + off into reg (0 when
 * they cannot be read). */
static void load_kernel(dt_cg_t *cx, int reg, int src_reg, int32_t off,
			int size)
{
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(cx->st->off_scratch + 16),
			  0));
	uint32_t scr = read_kernel_scratch(cx, src_reg, off, size);
	EMIT(DT_LOAD(size == 8 ? BPF_DW : BPF_W, reg, DT_R9, (int16_t)scr));
}

/* reg = the kernel's 8 bytes at reg + off (a fault reports reg + off) */
static void load_kernel_word(dt_cg_t *cx, int reg, int32_t off)
{
	EMIT(DT_ALU64_IMM(BPF_ADD, reg, off));
	uint32_t scr = read_kernel_scratch(cx, reg, 0, 8);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, reg);
	EMIT(DT_LOAD(BPF_DW, reg, DT_R9, (int16_t)scr));
}

/*
 * The address of this CPU's instance of the kernel's per-CPU variable n
 * (`name).  Neither its symbol nor __per_cpu_offset[] has an address the
 * program can learn (kallsyms lists text symbols only without
 * CONFIG_KALLSYMS_ALL, and the kernel then refuses BPF_PSEUDO_BTF_ID for
 * them too); but the current task's runqueue (task->se.cfs_rq->rq) is
 * this CPU's instance of the per-CPU variable runqueues, and BTF gives
 * every variable's place in the per-CPU area: the variable lies n->ival
 * bytes from it.
 */
static int cg_kvar_addr(dt_cg_t *cx, dt_node_t *n)
{
	int32_t se = dt_cg_btf_offset(cx->st, "task_struct", "se");
	int32_t cfs = dt_cg_btf_offset(cx->st, "sched_entity", "cfs_rq");
	int32_t rq = dt_cg_btf_offset(cx->st, "cfs_rq", "rq");
	int64_t delta = (int64_t)n->ival;

	if (se < 0 || cfs < 0 || rq < 0 || delta != (int32_t)delta)
		dt_pcb_error(cx->pcb, D_IDENT_UNDEF, n->line, "%s: kernel "
			     "variables need the scheduler's group runqueues "
			     "(CONFIG_FAIR_GROUP_SCHED) in the kernel's BTF",
			     n->name);
	int reg = cg_helper_value(cx, BPF_FUNC_get_current_task);
	load_kernel_word(cx, reg, se + cfs);
	load_kernel_word(cx, reg, rq);
	if (delta != 0)
		EMIT(DT_ALU64_IMM(BPF_ADD, reg, (int32_t)delta));
	return reg;
}

static bool is_kvar(const dt_node_t *n)
{
	return n->kind == DT_N_IDENT && n->ident != NULL &&
	       n->ident->kind == DT_IK_BUILTIN && n->ident->id == DT_BV_KVAR;
}

/* The value of an lvalue in user memory: scalars are read, aggregates
 * (struct, union, array) stay addresses. */
static int cg_user_value(dt_cg_t *cx, dt_node_t *n)
{
	if (dt_sou_rooted(n))	/* a part of a variable: BPF memory */
		return dt_sou_value(cx, n);
	int reg = is_kvar(n) ? cg_kvar_addr(cx, n) : cg_addr(cx, n);
	if (dt_node_is_bitfield(n))
		load_user_bitfield(cx, reg, n);
	else if (!is_sou_or_array(n->type))
		load_user(cx, reg, n->type);
	return reg;
}

/* reg = the user address of lvalue n (deref, member, index). */
static int cg_addr(dt_cg_t *cx, dt_node_t *n)
{
	int reg;

	if (n->kind == DT_N_UNARY && n->op == DT_OP_DEREF)
		return dt_cg_expr(cx, n->l);
	if (is_kvar(n))
		return cg_kvar_addr(cx, n);
	if (n->kind == DT_N_MEMBER) {
		const dt_type_t *st = n->l->type;
		reg = n->arrow ? dt_cg_expr(cx, n->l) : cg_addr(cx, n->l);
		if (n->arrow)
			st = st->base;
		dt_member_t *m = dt_type_member(st, n->name);
		if (m->offset != 0)
			EMIT(DT_ALU64_IMM(BPF_ADD, reg, (int32_t)m->offset));
		return reg;
	}
	if (n->kind == DT_N_INDEX) {
		reg = n->l->type->kind == DT_TK_ARRAY && n->l->lvalue &&
		      n->l->kind != DT_N_IDENT ? cg_addr(cx, n->l)
					       : dt_cg_expr(cx, n->l);
		int i = dt_cg_expr(cx, n->args);
		EMIT(DT_MOV64_REG(DT_R0, i));
		dt_regs_give(cx, i);
		if (n->type->size != 1)
			EMIT(DT_ALU64_IMM(BPF_MUL, DT_R0, (int32_t)n->type->size));
		EMIT(DT_ALU64_REG(BPF_ADD, reg, DT_R0));
		return reg;
	}
	dt_cg_ice(cx, "address of a non-lvalue");
}

int dt_cg_scratch_lvalue(dt_cg_t *cx, dt_node_t *n)
{
	const dt_type_t *t = n->type;
	int reg = cg_addr(cx, n);

	if (dt_node_is_bitfield(n))	/* its unit is read and written */
		dt_cg_scratch_ptr(cx, reg, dt_member_unit_size(n->member));
	else
		dt_cg_scratch_ptr(cx, reg, t->kind == DT_TK_PTR ? 8 :
				  (uint32_t)t->size);
	return reg;
}

/* ---- built-in variables ---- */

static int cg_helper_value(dt_cg_t *cx, int helper)
{
	EMIT(DT_CALL_HELPER(helper));
	int reg = dt_regs_take(cx);
	EMIT(DT_MOV64_REG(reg, DT_R0));
	return reg;
}

static int32_t btf_off(dt_cg_t *cx, const char *sou, const char *member)
{
	int32_t off = dt_cg_btf_offset(cx->st, sou, member);
	if (off < 0)
		dt_pcb_error(cx->pcb, D_IDENT_UNDEF, 0, "cannot find %s.%s "
			     "in the kernel's BTF", sou, member);
	return off;
}

static int cg_ppid(dt_cg_t *cx)
{
	int32_t parent = btf_off(cx, "task_struct", "real_parent");
	int32_t tgid = btf_off(cx, "task_struct", "tgid");
	int reg = cg_helper_value(cx, BPF_FUNC_get_current_task);

	load_kernel(cx, reg, reg, parent, 8);
	load_kernel(cx, reg, reg, tgid, 4);
	return reg;
}

/* vtimestamp: the thread's sum_exec_runtime, i.e. its CPU time up to its
 * last accounting point (the scheduler updates it at ticks and switches). */
static int cg_vtimestamp(dt_cg_t *cx)
{
	int32_t se = btf_off(cx, "task_struct", "se");
	int32_t rt = btf_off(cx, "sched_entity", "sum_exec_runtime");
	int reg = cg_helper_value(cx, BPF_FUNC_get_current_task);

	load_kernel(cx, reg, reg, se + rt, 8);
	return reg;
}

static int cg_timestamp(dt_cg_t *cx)
{
	int reg = dt_regs_take(cx);
	int have = dt_as_label(cx->as);

	/* cached per firing in mst->timestamp */
	EMIT(DT_LOAD(BPF_DW, reg, DT_R9, DT_MST_OFF(timestamp)));
	dt_as_jump(cx->as, BPF_JNE, reg, 0, have);
	EMIT(DT_CALL_HELPER(BPF_FUNC_ktime_get_ns));
	EMIT(DT_MOV64_REG(reg, DT_R0));
	EMIT(DT_STORE(BPF_DW, DT_R9, DT_MST_OFF(timestamp), reg));
	dt_as_place(cx->as, have);
	return reg;
}

static int cg_walltimestamp(dt_cg_t *cx)
{
	uint32_t key = cx->st->off_scratch;
	int reg = cg_helper_value(cx, BPF_FUNC_ktime_get_ns);
	int done = dt_as_label(cx->as);

	EMIT(DT_STORE_IMM(BPF_W, DT_R9, (int16_t)key, DT_STATE_WALL_OFFSET));
	dt_as_load_map(cx->as, DT_R1, dt_cg_map(cx->st, "state",
		BPF_MAP_TYPE_ARRAY, 4, 8, DT_STATE_NSLOTS));
	dt_cg_mst_ptr(cx, DT_R2, key);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, done);
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R0, 0));
	EMIT(DT_ALU64_REG(BPF_ADD, reg, DT_R0));
	dt_as_place(cx->as, done);
	return reg;
}

static int cg_execname(dt_cg_t *cx)
{
	uint32_t t = dt_cg_temp(cx);
	uint32_t sz = cx->st->strsize < 16 ? cx->st->strsize : 16;

	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)sz));
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_comm));
	int reg = dt_regs_take(cx);
	dt_cg_mst_ptr(cx, reg, t);
	return reg;
}

/* probeprov etc.: copied from the "probedesc" map entry of the PRID. */
static int cg_probedesc(dt_cg_t *cx, dt_bvar_t bv)
{
	static const struct { uint32_t off, size; } f[] = {
		{ offsetof(dt_probedesc_rt_t, prv), DT_PROBE_PRV_MAX },
		{ offsetof(dt_probedesc_rt_t, mod), DT_PROBE_MOD_MAX },
		{ offsetof(dt_probedesc_rt_t, fun), DT_PROBE_FUN_MAX },
		{ offsetof(dt_probedesc_rt_t, prb), DT_PROBE_PRB_MAX },
	};
	int i = bv - DT_BV_PROBEPROV;
	uint32_t t = dt_cg_temp(cx), key = cx->st->off_scratch;
	uint32_t sz = f[i].size < cx->st->strsize ? f[i].size : cx->st->strsize;
	int done = dt_as_label(cx->as);

	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)t, 0));
	EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(pub.prid)));
	EMIT(DT_STORE(BPF_W, DT_R9, (int16_t)key, DT_R0));
	dt_as_load_map(cx->as, DT_R1, dt_cg_map(cx->st, "probedesc",
		BPF_MAP_TYPE_ARRAY, 4, sizeof(dt_probedesc_rt_t), 0));
	dt_cg_mst_ptr(cx, DT_R2, key);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, done);
	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)sz));
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, (int32_t)f[i].off));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	dt_as_place(cx->as, done);
	int reg = dt_regs_take(cx);
	dt_cg_mst_ptr(cx, reg, t);
	return reg;
}

/* ucaller: the return address at the top of the user stack, valid at a
 * function's entry; 0 if it cannot be read. */
static int cg_ucaller(dt_cg_t *cx)
{
	uint32_t scr = cx->st->off_scratch + 16;
	int reg = dt_regs_take(cx);

	dt_cg_user_sp_word(cx, scr);
	EMIT(DT_LOAD(BPF_DW, reg, DT_R9, (int16_t)scr));
	return reg;
}

/* The frames of a kernel stack read into a string temporary: as many as
 * it holds, up to the kernel's own bound (perf_event_max_stack, 127 by
 * default). */
static uint32_t kstack_temp_frames(dt_cg_t *cx)
{
	uint32_t frames = 2 * cx->st->strroom / 8;

	return frames < 127 ? frames : 127;
}

/* stackdepth: the frames of the kernel stack, those of the probe's BPF
 * programs included, as stack() prints them. */
static int cg_stackdepth(dt_cg_t *cx)
{
	int reg = dt_regs_take(cx);
	int done = dt_as_label(cx->as);

	dt_cg_get_stack(cx, dt_cg_temp(cx), kstack_temp_frames(cx), 0);
	EMIT(DT_MOV64_REG(reg, DT_R0));
	dt_as_jump(cx->as, BPF_JSGE, reg, 0, done);
	EMIT(DT_MOV64_IMM(reg, 0));
	dt_as_place(cx->as, done);
	EMIT(DT_ALU64_IMM(BPF_RSH, reg, 3));
	return reg;
}

/* The lowest address of x86-64's module area (MODULES_VADDR), where the
 * JIT puts BPF programs: the kernel's own text lies below it.  As a BPF
 * immediate, sign-extended to 64 bits. */
#define KERNEL_MODULES_VADDR	((int32_t)0xc0000000)
/* The BPF frames of a probe (the clause, the programs that called it):
 * at most this many lead the kernel stack. */
#define CALLER_SCAN		8

/* caller: the first kernel frame below the probe's BPF programs (which
 * lead the stack, in the module area), the PC of the kernel code that
 * ran the probe; 0 when there is none. */
static int cg_caller(dt_cg_t *cx)
{
	uint32_t frames = kstack_temp_frames(cx);
	uint32_t off = dt_cg_temp(cx);
	int reg = dt_regs_take(cx);
	int done = dt_as_label(cx->as);

	if (frames > CALLER_SCAN)
		frames = CALLER_SCAN;
	dt_cg_get_stack(cx, off, frames, 0);
	for (uint32_t i = 0; i < frames; i++) {
		EMIT(DT_LOAD(BPF_DW, reg, DT_R9, (int16_t)(off + 8 * i)));
		dt_as_jump(cx->as, BPF_JLT, reg, KERNEL_MODULES_VADDR, done);
	}
	EMIT(DT_MOV64_IMM(reg, 0));
	dt_as_place(cx->as, done);
	return reg;
}

void dt_cg_user_sp_word(dt_cg_t *cx, uint32_t off)
{
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)off, 0));
	dt_cg_uregs_ptr(cx, DT_R3);
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R3, DTRACE_CTX_SP));
	dt_cg_mst_ptr(cx, DT_R1, off);
	EMIT(DT_MOV64_IMM(DT_R2, 8));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_user));
}

/* The clause reads argv[i]: its program's trampoline must fill it. */
static void cg_arg_read(dt_cg_t *cx, int i)
{
	if (cx->cc != NULL && i >= 0 && i < DTRACE_ARGS_MAX)
		cx->cc->args_read |= 1u << i;
}

static int cg_bvar(dt_cg_t *cx, dt_node_t *n)
{
	int reg;

	switch ((dt_bvar_t)n->ident->id) {
	case DT_BV_ARG:
		cg_arg_read(cx, (int)n->ival);
		reg = dt_regs_take(cx);
		EMIT(DT_LOAD(BPF_DW, reg, DT_R9,
			     (int16_t)(DT_MST_OFF(pub.argv) + 8 * n->ival)));
		return reg;
	case DT_BV_PID:
		reg = cg_helper_value(cx, BPF_FUNC_get_current_pid_tgid);
		EMIT(DT_ALU64_IMM(BPF_RSH, reg, 32));
		return reg;
	case DT_BV_TID:
		reg = cg_helper_value(cx, BPF_FUNC_get_current_pid_tgid);
		EMIT(DT_MOV32_REG(reg, reg));
		return reg;
	case DT_BV_UID:
		reg = cg_helper_value(cx, BPF_FUNC_get_current_uid_gid);
		EMIT(DT_MOV32_REG(reg, reg));
		return reg;
	case DT_BV_GID:
		reg = cg_helper_value(cx, BPF_FUNC_get_current_uid_gid);
		EMIT(DT_ALU64_IMM(BPF_RSH, reg, 32));
		return reg;
	case DT_BV_PPID:
		return cg_ppid(cx);
	case DT_BV_EXECNAME:
		return cg_execname(cx);
	case DT_BV_TIMESTAMP:
		return cg_timestamp(cx);
	case DT_BV_VTIMESTAMP:
		return cg_vtimestamp(cx);
	case DT_BV_WALLTIMESTAMP:
		return cg_walltimestamp(cx);
	case DT_BV_CPU:
		return cg_helper_value(cx, BPF_FUNC_get_smp_processor_id);
	case DT_BV_ID:
		reg = dt_regs_take(cx);
		EMIT(DT_LOAD(BPF_W, reg, DT_R9, DT_MST_OFF(pub.prid)));
		return reg;
	case DT_BV_EPID:
		reg = dt_regs_take(cx);
		EMIT(DT_LOAD(BPF_W, reg, DT_R9, DT_MST_OFF(epid)));
		return reg;
	case DT_BV_PROBEPROV: case DT_BV_PROBEMOD: case DT_BV_PROBEFUNC:
	case DT_BV_PROBENAME:
		return cg_probedesc(cx, (dt_bvar_t)n->ident->id);
	case DT_BV_ERRNO:
		/* Set by the trampoline of a system call's return, 0
		 * elsewhere (the prologue clears it). */
		reg = dt_regs_take(cx);
		EMIT(DT_LOAD(BPF_W, reg, DT_R9, DT_MST_OFF(pub.errnum)));
		return reg;
	case DT_BV_UCALLER:
		return cg_ucaller(cx);
	case DT_BV_CURTHREAD:
		return cg_helper_value(cx, BPF_FUNC_get_current_task);
	case DT_BV_CALLER:
		return cg_caller(cx);
	case DT_BV_KVAR:
		return cg_user_value(cx, n);
	case DT_BV_STACKDEPTH:
		return cg_stackdepth(cx);
	case DT_BV_USTACKDEPTH:
		dt_pcb_error(cx->pcb, D_VAR_UNSUP, n->line, "ustackdepth can "
			     "only be traced, printed or aggregated as it is "
			     "(the consumer unwinds the stack to know it)");
	default:
		dt_cg_ice(cx, "built-in variable");
	}
}

/* args[N]: the native argument it maps to, converted to its type. */
static int cg_args(dt_cg_t *cx, dt_node_t *n)
{
	int i = (int)n->args->ival;
	dtrace_probe_t *p = cx->probes[0];
	int native = p->nargs > i && p->args[i].mapping >= 0 &&
		     p->args[i].mapping < DTRACE_ARGS_MAX ?
		     p->args[i].mapping : i;
	int reg = dt_regs_take(cx);

	cg_arg_read(cx, native);
	EMIT(DT_LOAD(BPF_DW, reg, DT_R9,
		     (int16_t)(DT_MST_OFF(pub) + DTRACE_MSTATE_ARG(native))));
	dt_cg_convert(cx, reg, dt_type_int(cx->dtp->types, 8, false), n->type);
	return reg;
}

/* uregs[i].  The pc of a probe that traps in the user's code is the
 * trampoline's mstate.regs_ip: the address the probe stands for, where a
 * provider placed the uprobe past it (usdt on a site's 5-byte nop); 0
 * where the context has no registers, which are then read as for any
 * register (and refused on a tracepoint's record, as before). */
static int cg_uregs(dt_cg_t *cx, dt_node_t *n)
{
	int off = dt_ureg_ptregs_offset((int64_t)n->args->ival);
	int reg = dt_regs_take(cx);
	int done = dt_as_label(cx->as);

	if (off == DTRACE_CTX_IP && !cx->uregs_task) {
		EMIT(DT_LOAD(BPF_DW, reg, DT_R9, (int16_t)(DT_MST_OFF(pub) +
			     offsetof(dtrace_mstate_t, regs_ip))));
		dt_as_jump(cx->as, BPF_JNE, reg, 0, done);
	}
	dt_cg_uregs_ptr(cx, reg);
	EMIT(DT_LOAD(BPF_DW, reg, reg, (int16_t)off));
	dt_as_place(cx->as, done);
	return reg;
}

/* ---- operators ---- */

/* a = 1 when the jump to yes just emitted is taken, else 0. */
static void cg_setcc_to(dt_cg_t *cx, int a, int yes)
{
	int done = dt_as_label(cx->as);

	EMIT(DT_MOV64_IMM(a, 0));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, yes);
	EMIT(DT_MOV64_IMM(a, 1));
	dt_as_place(cx->as, done);
}

/* a = (a op r0) as 0 or 1, signed or unsigned per the common type. */
static void cg_setcc(dt_cg_t *cx, int op, int a)
{
	int yes = dt_as_label(cx->as);

	dt_as_jump_reg(cx->as, op, a, DT_R0, yes);
	cg_setcc_to(cx, a, yes);
}

static int cmp_jop(dt_op_t op, bool s)
{
	switch (op) {
	case DT_OP_EQ: return BPF_JEQ;
	case DT_OP_NE: return BPF_JNE;
	case DT_OP_LT: return s ? BPF_JSLT : BPF_JLT;
	case DT_OP_LE: return s ? BPF_JSLE : BPF_JLE;
	case DT_OP_GT: return s ? BPF_JSGT : BPF_JGT;
	default: return s ? BPF_JSGE : BPF_JGE;
	}
}

/* The comparison that holds where op does not. */
static dt_op_t cmp_negate(dt_op_t op)
{
	switch (op) {
	case DT_OP_EQ: return DT_OP_NE;
	case DT_OP_NE: return DT_OP_EQ;
	case DT_OP_LT: return DT_OP_GE;
	case DT_OP_LE: return DT_OP_GT;
	case DT_OP_GT: return DT_OP_LE;
	default: return DT_OP_LT;
	}
}

static dt_type_t *common_type(dt_cg_t *cx, dt_node_t *n)
{
	dt_type_t *a = n->l->type, *b = n->r->type;
	dt_typetab_t *T = cx->dtp->types;

	if (!dt_type_is_integer(a) || !dt_type_is_integer(b))
		return dt_type_int(T, 8, false);	/* pointers */
	unsigned as = a->size < 4 ? 4 : (unsigned)a->size;
	unsigned bs = b->size < 4 ? 4 : (unsigned)b->size;
	bool asg = a->size < 4 || a->is_signed, bsg = b->size < 4 || b->is_signed;
	if (as == bs)
		return dt_type_int(T, as, asg && bsg);
	return as > bs ? dt_type_int(T, as, asg || bs < as ? asg : false)
		       : dt_type_int(T, bs, bsg);
}

/* A NULL string compares as the empty string (DTrace's strcmp reads a
 * NULL operand as ""): reg = the mstate's zeroed bytes when it is 0. */
static void null_as_empty(dt_cg_t *cx, int reg)
{
	int done = dt_as_label(cx->as);

	dt_as_jump(cx->as, BPF_JNE, reg, 0, done);
	dt_cg_mst_ptr(cx, reg, cx->st->off_aggval);
	dt_as_place(cx->as, done);
}

/* The right side of a comparison: in r0, or an immediate. */
typedef struct cmp_rhs {
	bool is_imm;
	int32_t imm;
} cmp_rhs_t;

/* A comparison's operands, evaluated: the left one (or strcmp()'s result
 * for strings) in a register, returned; the right one in *rhs, an
 * immediate when it is a constant that is the same whatever the
 * comparison's type (arg0 < 0, the commonest predicate, in one jump).
 * *jop: the jump taken when op, n's comparison or its negation, holds. */
static int cmp_operands(dt_cg_t *cx, dt_node_t *n, dt_op_t op, int *jop,
			cmp_rhs_t *rhs)
{
	bool l_str = dt_check_is_string(n->l->type);
	int a = dt_cg_expr(cx, n->l), b;

	*rhs = (cmp_rhs_t){ false, 0 };
	if (l_str != dt_check_is_string(n->r->type)) {
		/* a string and NULL (the checker allows nothing else):
		 * compare the addresses */
		*jop = cmp_jop(op, false);
		b = dt_cg_expr(cx, n->r);
	} else if (l_str) {
		b = dt_cg_expr(cx, n->r);
		null_as_empty(cx, a);
		null_as_empty(cx, b);
		EMIT(DT_MOV64_REG(DT_R0, b));
		dt_regs_give(cx, b);
		dt_cg_strcmp(cx, a, DT_R0);	/* a = strcmp(a, r0) */
		*jop = cmp_jop(op, true);
		*rhs = (cmp_rhs_t){ true, 0 };
		return a;
	} else {
		dt_type_t *ct = common_type(cx, n);
		dt_cg_convert(cx, a, n->l->type, ct);
		*jop = cmp_jop(op, ct->is_signed);
		if (n->r->is_const && n->r->ival <= INT32_MAX) {
			*rhs = (cmp_rhs_t){ true, (int32_t)n->r->ival };
			return a;
		}
		b = dt_cg_expr(cx, n->r);
		dt_cg_convert(cx, b, n->r->type, ct);
	}
	EMIT(DT_MOV64_REG(DT_R0, b));
	dt_regs_give(cx, b);
	return a;
}

/* Emit the jump jop of register a against rhs to label. */
static void jump_on(dt_cg_t *cx, int jop, int a, cmp_rhs_t rhs, int label)
{
	if (rhs.is_imm)
		dt_as_jump(cx->as, jop, a, rhs.imm, label);
	else
		dt_as_jump_reg(cx->as, jop, a, DT_R0, label);
}

static int cg_compare(dt_cg_t *cx, dt_node_t *n)
{
	cmp_rhs_t rhs;
	int jop, yes = dt_as_label(cx->as);
	int a = cmp_operands(cx, n, n->op, &jop, &rhs);

	jump_on(cx, jop, a, rhs, yes);
	cg_setcc_to(cx, a, yes);
	return a;
}

/* The jump jop of register a (the last taken, given back here) to label:
 * on a itself unless giving it back reloads it, then on a copy. */
static void branch_give(dt_cg_t *cx, int jop, int a, cmp_rhs_t rhs,
			int label)
{
	int r = a;

	if (dt_regs_give_reloads(cx, a)) {
		r = rhs.is_imm ? DT_R0 : DT_R1;
		EMIT(DT_MOV64_REG(r, a));
	}
	dt_regs_give(cx, a);
	jump_on(cx, jop, r, rhs, label);
}

static dt_op_t base_op(dt_op_t op)
{
	switch (op) {
	case DT_OP_ADD_ASSIGN: return DT_OP_ADD;
	case DT_OP_SUB_ASSIGN: return DT_OP_SUB;
	case DT_OP_MUL_ASSIGN: return DT_OP_MUL;
	case DT_OP_DIV_ASSIGN: return DT_OP_DIV;
	case DT_OP_MOD_ASSIGN: return DT_OP_MOD;
	case DT_OP_SHL_ASSIGN: return DT_OP_SHL;
	case DT_OP_SHR_ASSIGN: return DT_OP_SHR;
	case DT_OP_AND_ASSIGN: return DT_OP_BAND;
	case DT_OP_OR_ASSIGN: return DT_OP_BOR;
	case DT_OP_XOR_ASSIGN: return DT_OP_BXOR;
	default: return op;
	}
}

/* a = a op r0, for values of type t (the result is normalized to t);
 * pointer arithmetic scales r0 by the pointed-to size (lt, rt: operand
 * types, for pointers). */
static void cg_arith(dt_cg_t *cx, dt_op_t op, int a, const dt_type_t *t,
		     const dt_type_t *lt, const dt_type_t *rt)
{
	bool s = t->is_signed;

	if ((op == DT_OP_ADD || op == DT_OP_SUB) && lt->kind == DT_TK_PTR &&
	    rt->kind == DT_TK_PTR) {
		EMIT(DT_ALU64_REG(BPF_SUB, a, DT_R0));
		if (lt->base->size > 1) {
			EMIT(DT_MOV64_IMM(DT_R0, (int32_t)lt->base->size));
			dt_cg_sdiv(cx, a, false);
		}
		return;
	}
	if (lt->kind == DT_TK_PTR && lt->base->size > 1)
		EMIT(DT_ALU64_IMM(BPF_MUL, DT_R0, (int32_t)lt->base->size));
	if (rt->kind == DT_TK_PTR && rt->base->size > 1)
		EMIT(DT_ALU64_IMM(BPF_MUL, a, (int32_t)rt->base->size));
	switch (op) {
	case DT_OP_ADD: EMIT(DT_ALU64_REG(BPF_ADD, a, DT_R0)); break;
	case DT_OP_SUB: EMIT(DT_ALU64_REG(BPF_SUB, a, DT_R0)); break;
	case DT_OP_MUL: EMIT(DT_ALU64_REG(BPF_MUL, a, DT_R0)); break;
	case DT_OP_DIV:
	case DT_OP_MOD:
		dt_cg_fault_if(cx, BPF_JEQ, DT_R0, 0, DT_FAULT_DIVZERO, -1);
		if (s)
			dt_cg_sdiv(cx, a, op == DT_OP_MOD);
		else
			EMIT(DT_ALU64_REG(op == DT_OP_DIV ? BPF_DIV : BPF_MOD,
					  a, DT_R0));
		break;
	case DT_OP_SHL: EMIT(DT_ALU64_REG(BPF_LSH, a, DT_R0)); break;
	case DT_OP_SHR:
		EMIT(DT_ALU64_REG(s ? BPF_ARSH : BPF_RSH, a, DT_R0));
		break;
	case DT_OP_BAND: EMIT(DT_ALU64_REG(BPF_AND, a, DT_R0)); break;
	case DT_OP_BOR: EMIT(DT_ALU64_REG(BPF_OR, a, DT_R0)); break;
	case DT_OP_BXOR: EMIT(DT_ALU64_REG(BPF_XOR, a, DT_R0)); break;
	default: dt_cg_ice(cx, "arithmetic operator");
	}
	dt_cg_convert(cx, a, dt_type_int(cx->dtp->types, 8, !s), t);
}

static int cg_binary_arith(dt_cg_t *cx, dt_node_t *n)
{
	dt_type_t *t = n->type;
	int a = dt_cg_expr(cx, n->l);

	if (dt_type_is_integer(t) && n->op != DT_OP_SHL && n->op != DT_OP_SHR)
		dt_cg_convert(cx, a, n->l->type, t);
	int b = dt_cg_expr(cx, n->r);
	if (dt_type_is_integer(t) && n->op != DT_OP_SHL && n->op != DT_OP_SHR)
		dt_cg_convert(cx, b, n->r->type, t);
	EMIT(DT_MOV64_REG(DT_R0, b));
	dt_regs_give(cx, b);
	cg_arith(cx, n->op, a, t, n->l->type, n->r->type);
	return a;
}

/* The keys of an lvalue that names an associative array, or NULL. */
static dt_node_t *lval_keys(dt_node_t *l)
{
	return l->kind == DT_N_INDEX ? l->args : NULL;
}

/* a = a op v for n, "x op= v" with x of type t held in a. */
static void cg_compound_apply(dt_cg_t *cx, dt_node_t *n, int a, dt_type_t *t)
{
	int b = dt_cg_expr(cx, n->r);

	if (dt_type_is_integer(t))
		dt_cg_convert(cx, b, n->r->type, t);
	EMIT(DT_MOV64_REG(DT_R0, b));
	dt_regs_give(cx, b);
	cg_arith(cx, base_op(n->op), a, t, t, n->r->type);
}

/* The middle step of a read-change-write of n's operand: from a, which
 * holds the value read (of type t), the value to write, in a or in a
 * register of its own. */
typedef int cg_change_fn(dt_cg_t *cx, dt_node_t *n, int a, dt_type_t *t);

static int compound_change(dt_cg_t *cx, dt_node_t *n, int a, dt_type_t *t)
{
	cg_compound_apply(cx, n, a, t);
	return a;
}

/* b = a stepped by ++ or -- (n) for a value of type t. */
static int incdec_step(dt_cg_t *cx, dt_node_t *n, int a, dt_type_t *t)
{
	bool inc = n->op == DT_OP_POSTINC || n->op == DT_OP_PREINC;
	int32_t step = t->kind == DT_TK_PTR ? (int32_t)t->base->size : 1;
	int b = dt_regs_take(cx);

	EMIT(DT_MOV64_REG(b, a));
	EMIT(DT_ALU64_IMM(BPF_ADD, b, inc ? step : -step));
	dt_cg_convert(cx, b, dt_type_int(cx->dtp->types, 8, true), t);
	return b;
}

/* Of a ++ or -- (n) that read a and stored b: the value of n. */
static void incdec_result(dt_cg_t *cx, dt_node_t *n, int a, int b)
{
	if (n->op == DT_OP_PREINC || n->op == DT_OP_PREDEC)
		EMIT(DT_MOV64_REG(a, b));
	dt_regs_give(cx, b);
}

/*
 * m op= v, ++m, m-- ... of m, a member or element of a struct, union or
 * array variable (dt_cg_sou.c) or an object reached through a pointer
 * (D scratch memory): read at m's address, changed, written back there.
 * The value (the new one, or the old one of m++ and m--) is in the
 * address's register (registers go back in order).
 */
static int cg_member_update(dt_cg_t *cx, dt_node_t *n, cg_change_fn *change)
{
	dt_type_t *t = n->l->type;
	int d = dt_sou_lvalue(cx, n->l);
	int a = dt_regs_take(cx);

	dt_sou_load_lvalue(cx, a, d, n->l);
	int v = change(cx, n, a, t);
	dt_sou_store_lvalue(cx, d, v, n->l);
	if (v != a)
		incdec_result(cx, n, a, v);
	EMIT(DT_MOV64_REG(d, a));
	dt_regs_give(cx, a);
	return d;
}

static int cg_assign(dt_cg_t *cx, dt_node_t *n)
{
	dt_ident_t *id = n->l->ident;

	if (id == NULL && n->op != DT_OP_ASSIGN)
		return cg_member_update(cx, n, compound_change);
	if (id == NULL || (n->op == DT_OP_ASSIGN && dt_sou_type(id->type)))
		return dt_sou_assign(cx, n);	/* dt_cg_sou.c */
	if (n->op == DT_OP_ASSIGN) {
		int v = dt_cg_expr(cx, n->r);
		dt_cg_var_store(cx, id, lval_keys(n->l), v, n->r->type);
		return v;
	}
	int a = dt_cg_var_load(cx, id, lval_keys(n->l));
	dt_type_t *t = id->type;
	cg_compound_apply(cx, n, a, t);
	dt_cg_var_store(cx, id, lval_keys(n->l), a, t);
	return a;
}

static int cg_incdec(dt_cg_t *cx, dt_node_t *n)
{
	dt_ident_t *id = n->l->ident;

	if (id == NULL)
		return cg_member_update(cx, n, incdec_step);
	int a = dt_cg_var_load(cx, id, lval_keys(n->l));
	int b = incdec_step(cx, n, a, id->type);
	dt_cg_var_store(cx, id, lval_keys(n->l), b, id->type);
	incdec_result(cx, n, a, b);
	return a;
}

static int cg_unary(dt_cg_t *cx, dt_node_t *n)
{
	int a;

	switch (n->op) {
	case DT_OP_PREINC: case DT_OP_PREDEC: case DT_OP_POSTINC:
	case DT_OP_POSTDEC:
		return cg_incdec(cx, n);
	case DT_OP_DEREF:
		return cg_user_value(cx, n);
	case DT_OP_ADDROF:
		if (dt_sou_rooted(n->l))	/* a part of a global */
			return dt_sou_addr(cx, n->l);
		return cg_addr(cx, n->l);
	case DT_OP_STRINGOF:
		return dt_cg_subr(cx, n);
	default:
		break;
	}
	a = dt_cg_expr(cx, n->l);
	switch (n->op) {
	case DT_OP_NEG:
		dt_cg_convert(cx, a, n->l->type, n->type);
		EMIT(DT_NEG64(a));
		break;
	case DT_OP_BITNOT:
		dt_cg_convert(cx, a, n->l->type, n->type);
		EMIT(DT_ALU64_IMM(BPF_XOR, a, -1));
		break;
	case DT_OP_LNOT:
		EMIT(DT_MOV64_IMM(DT_R0, 0));
		cg_setcc(cx, BPF_JEQ, a);
		return a;
	default:
		dt_cg_convert(cx, a, n->l->type, n->type);
		return a;
	}
	dt_cg_convert(cx, a, dt_type_int(cx->dtp->types, 8, true), n->type);
	return a;
}

static int cg_ternary(dt_cg_t *cx, dt_node_t *n)
{
	int res = dt_regs_take(cx);
	int other = dt_as_label(cx->as), done = dt_as_label(cx->as);

	dt_cg_branch(cx, n->cond, false, other);
	for (int side = 0; side < 2; side++) {
		dt_node_t *e = side == 0 ? n->l : n->r;
		int v = dt_cg_expr(cx, e);
		if (dt_type_is_integer(n->type))
			dt_cg_convert(cx, v, e->type, n->type);
		EMIT(DT_MOV64_REG(DT_R0, v));
		dt_regs_give(cx, v);
		EMIT(DT_MOV64_REG(res, DT_R0));
		if (side == 0) {
			dt_as_jump(cx->as, BPF_JA, 0, 0, done);
			dt_as_place(cx->as, other);
		}
	}
	dt_as_place(cx->as, done);
	return res;
}

static int cg_shortcircuit(dt_cg_t *cx, dt_node_t *n)
{
	int res = dt_regs_take(cx);
	int no = dt_as_label(cx->as), done = dt_as_label(cx->as);

	dt_cg_branch(cx, n, false, no);
	EMIT(DT_MOV64_IMM(res, 1));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, no);
	EMIT(DT_MOV64_IMM(res, 0));
	dt_as_place(cx->as, done);
	return res;
}

static int cg_lxor(dt_cg_t *cx, dt_node_t *n)
{
	int a = dt_cg_expr(cx, n->l);

	EMIT(DT_MOV64_IMM(DT_R0, 0));
	cg_setcc(cx, BPF_JNE, a);
	int b = dt_cg_expr(cx, n->r);
	EMIT(DT_MOV64_IMM(DT_R0, 0));
	cg_setcc(cx, BPF_JNE, b);
	EMIT(DT_MOV64_REG(DT_R0, b));
	dt_regs_give(cx, b);
	EMIT(DT_ALU64_REG(BPF_XOR, a, DT_R0));
	return a;
}

static int cg_binary(dt_cg_t *cx, dt_node_t *n)
{
	switch (n->op) {
	case DT_OP_ASSIGN: case DT_OP_ADD_ASSIGN: case DT_OP_SUB_ASSIGN:
	case DT_OP_MUL_ASSIGN: case DT_OP_DIV_ASSIGN: case DT_OP_MOD_ASSIGN:
	case DT_OP_SHL_ASSIGN: case DT_OP_SHR_ASSIGN: case DT_OP_AND_ASSIGN:
	case DT_OP_OR_ASSIGN: case DT_OP_XOR_ASSIGN:
		return cg_assign(cx, n);
	case DT_OP_COMMA:
		dt_regs_give(cx, dt_cg_expr(cx, n->l));
		return dt_cg_expr(cx, n->r);
	case DT_OP_EQ: case DT_OP_NE: case DT_OP_LT: case DT_OP_LE:
	case DT_OP_GT: case DT_OP_GE:
		return cg_compare(cx, n);
	case DT_OP_LAND: case DT_OP_LOR:
		return cg_shortcircuit(cx, n);
	case DT_OP_LXOR:
		return cg_lxor(cx, n);
	default:
		return cg_binary_arith(cx, n);
	}
}

static int cg_cast(dt_cg_t *cx, dt_node_t *n)
{
	if (dt_check_is_string(n->type) && !dt_check_is_string(n->l->type))
		return dt_cg_subr(cx, n);	/* (string)ptr: like stringof */
	int a = dt_cg_expr(cx, n->l);
	if (dt_type_is_integer(n->type))
		dt_cg_convert(cx, a, dt_type_is_integer(n->l->type) ?
			      n->l->type : dt_type_int(cx->dtp->types, 8,
						       false), n->type);
	return a;
}

/* s[i] of a string: its character i (kernel memory: a temporary, a
 * variable or the string table), 0 past strsize. */
static int cg_string_char(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t scr = cx->st->off_scratch + 16;
	int s = dt_cg_expr(cx, n->l);
	int zero = dt_as_label(cx->as), done = dt_as_label(cx->as);

	dt_cg_str_notnull(cx, s);
	int i = dt_cg_expr(cx, n->args);
	EMIT(DT_MOV64_REG(DT_R3, s));
	EMIT(DT_MOV64_REG(DT_R0, i));
	dt_regs_give(cx, i);
	dt_as_jump(cx->as, BPF_JGE, DT_R0, (int32_t)cx->st->strsize, zero);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R0));
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)scr, 0));
	dt_cg_mst_ptr(cx, DT_R1, scr);
	EMIT(DT_MOV64_IMM(DT_R2, 1));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	EMIT(DT_LOAD(BPF_B, s, DT_R9, (int16_t)scr));
	dt_cg_movsx(cx, s, s, 8);
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, zero);
	EMIT(DT_MOV64_IMM(s, 0));
	dt_as_place(cx->as, done);
	return s;
}

static int cg_index(dt_cg_t *cx, dt_node_t *n)
{
	dt_ident_t *id = n->ident;

	if (id == NULL && dt_check_is_string(n->l->type))
		return cg_string_char(cx, n);

	if (id != NULL && id->kind == DT_IK_BUILTIN)
		return id->id == DT_BV_ARGS ? cg_args(cx, n) : cg_uregs(cx, n);
	if (id != NULL)
		return dt_cg_var_load(cx, id, n->args);
	return cg_user_value(cx, n);
}

/* dt_cg_branch() of l && r or l || r: each side is tested as a branch,
 * and the right one only when the left one does not decide. */
static void branch_logical(dt_cg_t *cx, dt_node_t *n, bool when, int label)
{
	bool decides = n->op == DT_OP_LOR;	/* the left side's value that
						   decides n: || true, && false */
	if (when == decides) {
		dt_cg_branch(cx, n->l, when, label);
		dt_cg_branch(cx, n->r, when, label);
		return;
	}
	int decided = dt_as_label(cx->as);
	dt_cg_branch(cx, n->l, decides, decided);
	dt_cg_branch(cx, n->r, when, label);
	dt_as_place(cx->as, decided);
}

void dt_cg_branch(dt_cg_t *cx, dt_node_t *n, bool when, int label)
{
	bool is_op = !n->is_const && (n->kind == DT_N_UNARY ||
				      n->kind == DT_N_BINARY);

	switch (is_op ? n->op : DT_OP_NONE) {
	case DT_OP_LNOT:
		dt_cg_branch(cx, n->l, !when, label);
		return;
	case DT_OP_LAND: case DT_OP_LOR:
		branch_logical(cx, n, when, label);
		return;
	case DT_OP_EQ: case DT_OP_NE: case DT_OP_LT: case DT_OP_LE:
	case DT_OP_GT: case DT_OP_GE: {
		cmp_rhs_t rhs;
		int jop, a = cmp_operands(cx, n, when ? n->op :
					  cmp_negate(n->op), &jop, &rhs);
		branch_give(cx, jop, a, rhs, label);
		return;
	}
	default: {
		int v = dt_cg_expr(cx, n);
		branch_give(cx, when ? BPF_JNE : BPF_JEQ, v,
			    (cmp_rhs_t){ true, 0 }, label);
	}
	}
}

int dt_cg_expr(dt_cg_t *cx, dt_node_t *n)
{
	if (n->is_const) {
		int reg = dt_regs_take(cx);
		load_imm(cx, reg, n->ival);
		return reg;
	}
	switch (n->kind) {
	case DT_N_STRING:
		return cg_string(cx, n);
	case DT_N_IDENT:
		if (n->ident->kind == DT_IK_BUILTIN)
			return cg_bvar(cx, n);
		if (n->ident->kind == DT_IK_INLINE)
			return dt_cg_expr(cx, n->ident->expr);
		return dt_cg_var_load(cx, n->ident, NULL);
	case DT_N_UNARY:
		return cg_unary(cx, n);
	case DT_N_BINARY:
		return cg_binary(cx, n);
	case DT_N_TERNARY:
		return cg_ternary(cx, n);
	case DT_N_CAST:
		return cg_cast(cx, n);
	case DT_N_CALL:
		return dt_cg_subr(cx, n);
	case DT_N_INDEX:
		return cg_index(cx, n);
	case DT_N_MEMBER:
		if (n->ident != NULL)
			return dt_cg_var_load(cx, n->ident, NULL);
		return cg_user_value(cx, n);
	case DT_N_XLATE:
		return dt_xlate_cg(cx, n);	/* dt_cg_xlate.c */
	default:
		dt_cg_ice(cx, "expression kind");
	}
}
