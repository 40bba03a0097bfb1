/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_act.c: actions: what a clause records for the consumer, and the
 * few actions done in BPF itself (raise, stop, exit's state change).
 *
 * Each data-recording statement becomes one dt_actdesc_t whose records sit
 * at 8-byte aligned offsets of the clause's record data (dt_rec.h).
 * Integers take an 8-byte slot holding the value normalized to its type;
 * their record's size is the type's size, so reading size bytes at the
 * offset (little endian) gives the value.  Strings take strsize bytes.
 * When an action sits inside an if statement, the data starts with a u64
 * mask of the actions that ran (bit i: acts[i]; dt_compiled_clause.actmask).
 * stack() records bpf_get_stack()'s PCs, ustack() a copy of the user
 * stack and registers that the consumer unwinds (dt_unwind.c), ufunc(),
 * usym(), umod() and uaddr() the pid and the address; the same code builds
 * them as aggregation keys, except ustack(): an aggregation keyed on it is
 * aggregated by the consumer from a record (dt_cg_agg_sample()).  printf's
 * %a and %A arguments are recorded with the pid too.
 */
#include <signal.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "dt_cg_impl.h"
#include "dt_progdesc.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)

static uint32_t rec_mst_off(dt_cg_t *cx, uint32_t data_off)
{
	return cx->st->off_rec + (uint32_t)sizeof(dt_rechdr_t) + data_off;
}

static void record_udepth(dt_cg_t *cx, dt_recdesc_t *rd, dt_node_t *a);
static void record_usample(dt_cg_t *cx, dt_recdesc_t *rd, dt_node_t *call);

/* Record the value of expression a: integer, string or user memory. */
static void record_value(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *a)
{
	dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);
	dt_type_t *t = a->type;
	uint32_t ntemps = cx->ntemps;

	if (dt_check_is_udepth(a)) {
		record_udepth(cx, rd, a);
		return;
	}
	int reg = dt_cg_expr(cx, a);

	rd->type = t;
	if (dt_check_is_string(t)) {
		rd->kind = DT_RK_STRING;
		rd->size = cx->st->strsize;
		rd->offset = dt_cg_rec_alloc(cx, rd->size);
		dt_cg_copy_str(cx, rec_mst_off(cx, rd->offset), reg);
	} else if (dt_type_in_register(t)) {
		rd->kind = DT_RK_INT;
		rd->size = t->kind == DT_TK_PTR ? 8 : (uint32_t)t->size;
		rd->is_signed = t->kind != DT_TK_PTR && t->is_signed;
		rd->offset = dt_cg_rec_alloc(cx, 8);
		EMIT(DT_STORE(BPF_DW, DT_R9,
			      (int16_t)rec_mst_off(cx, rd->offset), reg));
	} else {
		/* a struct, union or array in user memory, or in a variable
		 * (BPF memory): its bytes */
		rd->kind = DT_RK_MEM;
		rd->size = (uint32_t)t->size;
		rd->offset = dt_cg_rec_alloc(cx, rd->size);
		dt_sou_copy_to_mst(cx, rec_mst_off(cx, rd->offset), reg, a,
				   rd->size);
	}
	dt_regs_give(cx, reg);
	cx->ntemps = ntemps;	/* the value is in the record now */
}

/* Emit: record the string that the char * at record offset ptr_off
 * points to, after the read's result (print()). */
static void record_member_string(dt_cg_t *cx, dt_actdesc_t *ad,
				 uint32_t ptr_off)
{
	dt_recdesc_t *res = dt_cg_rec_new(cx, ad);
	res->kind = DT_RK_INT;
	res->size = 8;
	res->is_signed = true;
	res->offset = dt_cg_rec_alloc(cx, 8);
	uint32_t res_off = res->offset;
	dt_recdesc_t *str = dt_cg_rec_new(cx, ad);
	str->kind = DT_RK_STRING;
	str->size = cx->st->strsize;
	str->offset = dt_cg_rec_alloc(cx, str->size);

	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)rec_mst_off(cx, ptr_off)));
	dt_cg_mst_ptr(cx, DT_R1, rec_mst_off(cx, str->offset));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)str->size));
	dt_cg_probe_read(cx, true);
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)rec_mst_off(cx, res_off),
		      DT_R0));
}

/* print() of a struct or union recorded at record offset off: the strings
 * its char * members point to, as DTrace's print shows them, while the
 * record has room (dt_rec.h, DT_ACT_PRINT). */
static void record_print_strings(dt_cg_t *cx, dt_actdesc_t *ad,
				 const dt_type_t *t, uint32_t off, int *n)
{
	uint32_t pair = 8 + ((cx->st->strsize + 7) & ~7u);

	for (const dt_member_t *m = t->members; m != NULL; m = m->next) {
		if (m->type->kind == DT_TK_STRUCT ||
		    m->type->kind == DT_TK_UNION) {
			record_print_strings(cx, ad, m->type, off + m->offset,
					     n);
			continue;
		}
		if (!dt_print_is_strptr(m->type) || m->bit_size != 0 ||
		    *n == DT_PRINT_STRINGS_MAX ||
		    ((cx->recsize + 7) & ~7u) + pair > cx->st->rec_max)
			continue;
		record_member_string(cx, ad, off + m->offset);
		(*n)++;
	}
}

/* print(a): its value, and the strings of a struct's char * members. */
static void record_print(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *a)
{
	int n = 0;

	record_value(cx, ad, a);
	if (ad->recs[0].kind == DT_RK_MEM && (a->type->kind == DT_TK_STRUCT ||
					      a->type->kind == DT_TK_UNION))
		record_print_strings(cx, ad, a->type, ad->recs[0].offset, &n);
}

/* The bytes of user stack ustack() copies: -x ustackbytes in whole
 * blocks, at least one. */
static uint32_t usample_bytes(const dt_cg_state_t *st)
{
	uint64_t n = st->dtp->opt.ustackbytes;

	n = (n + DT_USAMPLE_BLOCK - 1) / DT_USAMPLE_BLOCK * DT_USAMPLE_BLOCK;
	if (n == 0)
		n = DT_USAMPLE_BLOCK;
	return n > st->rec_max ? st->rec_max : (uint32_t)n;
}

void dt_cg_usample_desc(const dt_cg_state_t *st, const dt_node_t *call,
			dt_recdesc_t *rd)
{
	rd->kind = DT_RK_USAMPLE;
	rd->arg = call != NULL ? dt_stack_frames(st->dtp, call) : 0;
	rd->size = (uint32_t)sizeof(dt_usample_t) + usample_bytes(st);
}

void dt_cg_stack_desc(const dt_cg_state_t *st, const dt_node_t *call,
		      dt_recdesc_t *rd)
{
	bool user = strcmp(call->name, "ustack") == 0;
	int usym = dt_check_usym_call(call);

	if (usym >= 0) {
		rd->kind = DT_RK_UADDR;
		rd->arg = (uint32_t)usym;
		rd->size = 16;
		return;
	}

	rd->kind = user ? DT_RK_USTACK : DT_RK_KSTACK;
	rd->arg = dt_stack_frames(st->dtp, call);
	rd->size = 8 * (rd->arg + (user ? 1 : 0));
}

void dt_cg_get_stack(dt_cg_t *cx, uint32_t off, uint32_t frames,
		     uint64_t flags)
{
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_FP, DT_FRAME_CTX));
	dt_cg_mst_ptr(cx, DT_R2, off);
	EMIT(DT_MOV64_IMM(DT_R3, (int32_t)(frames * 8)));
	EMIT(DT_MOV64_IMM(DT_R4, (int32_t)flags));
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_stack));
}

/*
 * Emit: the stack record rd at mstate offset off: a kernel stack's PCs
 * (bpf_get_stack() zero-fills what it does not write, and the whole
 * buffer on failure, so the PCs are always 0-terminated or fill the
 * record), or a user address with its pid.  A user stack is never walked
 * here: ustack() records a copy of the stack (dt_cg_usample()).
 */
/* Emit: the pid at off, the value of expression a at off + 8. */
static void record_uaddr(dt_cg_t *cx, dt_node_t *a, uint32_t off)
{
	uint32_t ntemps = cx->ntemps;
	int reg = dt_cg_expr(cx, a);

	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)(off + 8), reg));
	dt_regs_give(cx, reg);
	cx->ntemps = ntemps;
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R0, 32));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)off, DT_R0));
}

void dt_cg_stack(dt_cg_t *cx, dt_node_t *call, const dt_recdesc_t *rd,
		 uint32_t off)
{
	if (rd->kind == DT_RK_UADDR) {
		record_uaddr(cx, call->args, off);
		return;
	}
	if (rd->kind != DT_RK_KSTACK)
		dt_cg_ice(cx, "user stack key");
	dt_cg_get_stack(cx, off, rd->arg, 0);
}

/* pt_regs offsets of the registers of a dt_usample_t, in its order. */
static const int16_t usample_regs[] = {
	128 /* ip */, 152 /* sp */, 32 /* bp */, 40 /* bx */,
	24 /* r12 */, 16 /* r13 */, 8 /* r14 */, 0 /* r15 */,
};

/* Where the kernel keeps the return addresses its uretprobes replaced:
 * task_struct.utask->return_instances, a list of (stack slot, original
 * address).  Looked up once in the kernel's BTF; all -1 when unknown. */
static const int *uret_offsets(dt_cg_state_t *st)
{
	int *o = st->uret_off;

	if (o[0] != 0)
		return o;
	o[0] = dt_cg_btf_offset(st, "task_struct", "utask");
	o[1] = dt_cg_btf_offset(st, "uprobe_task", "return_instances");
	o[2] = dt_cg_btf_offset(st, "return_instance", "stack");
	o[3] = dt_cg_btf_offset(st, "return_instance", "orig_ret_vaddr");
	o[4] = dt_cg_btf_offset(st, "return_instance", "next");
	for (int i = 0; i < 5; i++)
		if (o[i] < 0)
			o[0] = -1;
	return o;
}

/* Emit: *(u64 *)(mst + dst) = the kernel word at *(mst + src) + off;
 * jump to fail when it cannot be read. */
static void read_kernel_word(dt_cg_t *cx, uint32_t dst, uint32_t src,
			     int off, int fail)
{
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)src));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, off));
	dt_cg_mst_ptr(cx, DT_R1, dst);
	EMIT(DT_MOV64_IMM(DT_R2, 8));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, fail);
}

/* Emit: the uret[] of the sample at off, from the current task's return
 * instances (the list is walked in the staging slot of the scratch). */
static void usample_urets(dt_cg_t *cx, uint32_t off)
{
	const int *o = uret_offsets(cx->st);
	uint32_t ri = cx->st->off_scratch + 16;
	uint32_t u0 = off + (uint32_t)offsetof(dt_usample_t, uret);
	int done = dt_as_label(cx->as);

	for (int i = 0; i < DT_USAMPLE_URETS; i++) {
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(u0 + 16 * i), 0));
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(u0 + 16 * i + 8), 0));
	}
	if (o[0] < 0)
		return;
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_task));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)ri, DT_R0));
	read_kernel_word(cx, ri, ri, o[0], done);	/* utask */
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)ri));
	dt_as_jump(cx->as, BPF_JEQ, DT_R3, 0, done);
	read_kernel_word(cx, ri, ri, o[1], done);	/* the first */
	for (int i = 0; i < DT_USAMPLE_URETS; i++) {
		uint32_t u = u0 + 16 * (uint32_t)i;

		EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)ri));
		dt_as_jump(cx->as, BPF_JEQ, DT_R3, 0, done);
		read_kernel_word(cx, u, ri, o[2], done);
		read_kernel_word(cx, u + 8, ri, o[3], done);
		read_kernel_word(cx, ri, ri, o[4], done);
	}
	dt_as_place(cx->as, done);
}

/*
 * Emit: the dt_usample_t of rd at off, then the user stack: block i of
 * DT_USAMPLE_BLOCK bytes from sp rounded down to a block, read until one
 * cannot be (a block never straddles pages, so all those below the top
 * of the stack are read).  Outside user mode (a profile sample in the
 * kernel) nothing is copied: len stays 0.
 */
void dt_cg_usample(dt_cg_t *cx, const dt_recdesc_t *rd, uint32_t off)
{
	uint32_t nblocks = (rd->size - (uint32_t)sizeof(dt_usample_t)) /
			   DT_USAMPLE_BLOCK;
	int16_t o_base = (int16_t)(off + offsetof(dt_usample_t, base));
	int16_t o_len = (int16_t)(off + offsetof(dt_usample_t, len));
	int16_t o_regs = (int16_t)(off + offsetof(dt_usample_t, ip));
	int done = dt_as_label(cx->as);

	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R0, 32));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)off, DT_R0));
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, o_len, 0));
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, o_regs, 0));	/* ip: no stack */
	dt_cg_uregs_ptr(cx, DT_R1);
	EMIT(DT_LOAD(BPF_DW, DT_R2, DT_R1, 136));	/* cs */
	EMIT(DT_ALU64_IMM(BPF_AND, DT_R2, 3));
	dt_as_jump(cx->as, BPF_JNE, DT_R2, 3, done);
	usample_urets(cx, off);
	dt_cg_uregs_ptr(cx, DT_R1);
	for (size_t i = 0; i < sizeof(usample_regs) / 2; i++) {
		EMIT(DT_LOAD(BPF_DW, DT_R2, DT_R1, usample_regs[i]));
		EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)(o_regs + 8 * i), DT_R2));
	}
	/* The first frame is the address the probe stands for, which
	 * the trampoline leaves in mstate.regs_ip (usdt's probe on a site's
	 * 5-byte nop is one byte past it; uregs[R_PC] reads the same). */
	if (!cx->uregs_task) {
		int keep = dt_as_label(cx->as);

		EMIT(DT_LOAD(BPF_DW, DT_R2, DT_R9, (int16_t)(DT_MST_OFF(pub) +
			     offsetof(dtrace_mstate_t, regs_ip))));
		dt_as_jump(cx->as, BPF_JEQ, DT_R2, 0, keep);
		EMIT(DT_STORE(BPF_DW, DT_R9, o_regs, DT_R2));
		dt_as_place(cx->as, keep);
	}
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R1, 152));	/* sp */
	EMIT(DT_ALU64_IMM(BPF_AND, DT_R3, -DT_USAMPLE_BLOCK));
	EMIT(DT_STORE(BPF_DW, DT_R9, o_base, DT_R3));
	for (uint32_t i = 0; i < nblocks; i++) {
		uint32_t at = off + (uint32_t)sizeof(dt_usample_t) +
			      i * DT_USAMPLE_BLOCK;

		EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, o_base));
		if (i > 0)
			EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3,
					  (int32_t)(i * DT_USAMPLE_BLOCK)));
		dt_cg_mst_ptr(cx, DT_R1, at);
		EMIT(DT_MOV64_IMM(DT_R2, DT_USAMPLE_BLOCK));
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_user));
		dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, done);
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, o_len,
				  (int32_t)((i + 1) * DT_USAMPLE_BLOCK)));
	}
	dt_as_place(cx->as, done);
}

/* The user stack record rd of ustack() call: the clause's one copy of
 * the stack when it has one and runs every action (no action mask). */
static void record_usample(dt_cg_t *cx, dt_recdesc_t *rd, dt_node_t *call)
{
	dt_cg_usample_desc(cx->st, call, rd);
	if (cx->usample_at != 0 && !cx->actmask) {
		rd->offset = cx->usample_at - 1;
		return;
	}
	rd->offset = dt_cg_rec_alloc(cx, rd->size);
	dt_cg_usample(cx, rd, rec_mst_off(cx, rd->offset));
	cx->usample_at = rd->offset + 1;
}

/* ustackdepth as a value rd: an unsigned 32-bit integer that the
 * consumer writes in the record's slot once it has unwound the clause's
 * copy of the user stack (at rd->arg, its size rd->usample): the number
 * of frames of the whole stack, whatever -x ustackframes says. */
static void record_udepth(dt_cg_t *cx, dt_recdesc_t *rd, dt_node_t *a)
{
	dt_recdesc_t sample = { 0 };

	record_usample(cx, &sample, NULL);
	rd->kind = DT_RK_INT;
	rd->size = 4;
	rd->type = a->type;
	rd->arg = sample.offset;
	rd->usample = sample.size;
	rd->offset = dt_cg_rec_alloc(cx, 8);
	cx->udepth = true;
}

static void act_stack(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *call)
{
	dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);

	if (strcmp(call->name, "ustack") == 0) {
		record_usample(cx, rd, call);
		return;
	}
	dt_cg_stack_desc(cx->st, call, rd);
	rd->offset = dt_cg_rec_alloc(cx, rd->size);
	dt_cg_stack(cx, call, rd, rec_mst_off(cx, rd->offset));
}

/* printf's arguments; those of %a and %A with the pid of the process
 * (the consumer symbolizes them against its modules). */
static void record_printf_args(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *fmt)
{
	uint64_t addrs = dt_printf_addr_args(fmt->str);
	int i = 0;

	for (dt_node_t *x = fmt->next; x != NULL; x = x->next, i++) {
		if (i >= 64 || !(addrs & (1ULL << i))) {
			record_value(cx, ad, x);
			continue;
		}
		dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);
		rd->kind = DT_RK_UADDR;
		rd->arg = DT_USYM_ADDR;
		rd->size = 16;
		rd->type = x->type;
		rd->offset = dt_cg_rec_alloc(cx, rd->size);
		record_uaddr(cx, x, rec_mst_off(cx, rd->offset));
	}
}

/* tracemem(addr, size[, n]) and printm(size, addr): size bytes at addr;
 * tracemem's n, evaluated when the probe fires, as a second record (the
 * consumer prints at most n of the bytes). */
static void act_tracemem(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *call)
{
	bool printm = strcmp(call->name, "printm") == 0;
	dt_node_t *addr = printm ? call->args->next : call->args;
	dt_node_t *size = printm ? call->args : call->args->next;
	dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);
	int reg = dt_cg_expr(cx, addr);

	rd->kind = DT_RK_MEM;
	rd->size = (uint32_t)size->ival;
	rd->arg = rd->size;
	rd->type = addr->type;
	rd->offset = dt_cg_rec_alloc(cx, rd->size);
	dt_cg_mst_ptr(cx, DT_R1, rec_mst_off(cx, rd->offset));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)rd->size));
	EMIT(DT_MOV64_REG(DT_R3, reg));
	dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, reg);
	dt_regs_give(cx, reg);
	if (!printm && size->next != NULL)
		record_value(cx, ad, size->next);
}

/* Set bit i of the action mask when the action runs conditionally. */
static void mark_action(dt_cg_t *cx, int i)
{
	if (!cx->actmask)
		return;
	if (i >= 64)
		dt_pcb_error(cx->pcb, D_STACK_SIZE, 0, "too many actions in "
			     "a clause with if statements (at most 64)");
	int16_t off = (int16_t)rec_mst_off(cx, 0);
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R9, off));
	dt_as_ld_imm64(cx->as, DT_R2, 1ULL << i);
	EMIT(DT_ALU64_REG(BPF_OR, DT_R1, DT_R2));
	EMIT(DT_STORE(BPF_DW, DT_R9, off, DT_R1));
}

#define DT_CMPXCHG64(d, o, s) \
	DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_CMPXCHG)

/*
 * exit(): besides its record, stop every probe but END from now on.  The
 * first exit() of the session wins, as in DTrace: it moves the activity
 * (active, or inactive in BEGIN) to draining atomically and marks the
 * firing, which then runs no further clause (dt_prog_emit.c) and drops the
 * clause's later exit() records (they run with the action mask: see
 * check_action()).  An exit() in END, where the session already drains,
 * records its status.
 */
/* The first exit() lowers every CPU's copy of the activity (cpu_active,
 * which the firings of other probes read; dt_prog_emit.c), after it moved
 * the session's own. */
static void act_exit_cpus(dt_cg_t *cx)
{
	dtrace_map_t *mst = dt_cg_map(cx->st, "mstate", BPF_MAP_TYPE_ARRAY, 4,
				      0, 0);
	int16_t key = (int16_t)cx->st->off_scratch;
	int ncpus = libbpf_num_possible_cpus();

	for (int cpu = 0; cpu < ncpus; cpu++) {
		int next = dt_as_label(cx->as);

		EMIT(DT_STORE_IMM(BPF_W, DT_R9, key, cpu));
		dt_as_load_map(cx->as, DT_R1, mst);
		dt_cg_mst_ptr(cx, DT_R2, (uint32_t)key);
		EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
		dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, next);
		EMIT(DT_STORE_IMM(BPF_W, DT_R0, DT_MST_OFF(cpu_active), 0));
		dt_as_place(cx->as, next);
	}
}

static void act_exit_state(dt_cg_t *cx)
{
	int keep = dt_as_label(cx->as), drop = dt_as_label(cx->as);

	EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(exited)));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, drop);
	dt_cg_array_value(cx, dt_cg_map(cx->st, "state", BPF_MAP_TYPE_ARRAY,
					4, 8, DT_STATE_NSLOTS), keep);
	EMIT(DT_MOV64_REG(DT_R1, DT_R0));
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R1, 0));
	dt_as_jump(cx->as, BPF_JGE, DT_R0, DT_ACTIVITY_DRAINING, keep);
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
	EMIT(DT_MOV64_IMM(DT_R2, DT_ACTIVITY_DRAINING));
	EMIT(DT_CMPXCHG64(DT_R1, 0, DT_R2));
	dt_as_jump_reg(cx->as, BPF_JNE, DT_R0, DT_R3, keep);
	EMIT(DT_STORE_IMM(BPF_W, DT_R9, DT_MST_OFF(exited), 1));
	act_exit_cpus(cx);
	dt_as_place(cx->as, keep);
	mark_action(cx, cx->nacts - 1);
	dt_as_place(cx->as, drop);
}

static void act_signal(dt_cg_t *cx, dt_node_t *sig, int signo)
{
	if (sig != NULL) {
		int reg = dt_cg_expr(cx, sig);
		EMIT(DT_MOV64_REG(DT_R1, reg));
		dt_regs_give(cx, reg);
	} else {
		EMIT(DT_MOV64_IMM(DT_R1, signo));
	}
	EMIT(DT_CALL_HELPER(BPF_FUNC_send_signal));
}

static void act_aggs(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *a)
{
	for (; a != NULL; a = a->next) {
		if (a->kind != DT_N_AGG)
			continue;
		ad->aggs = dt_realloc(ad->aggs, sizeof(int) *
				      (size_t)(ad->naggs + 1));
		ad->aggs[ad->naggs++] = a->ident->id;
	}
}

static void act_strings(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *a)
{
	/* setopt(name[, value]): the name in fmt, the value as a record */
	ad->fmt = dt_strdup(a->str);
	if (a->next != NULL)
		record_value(cx, ad, a->next);
}

/* The statement @a[keys] = f(args) of an aggregation keyed on ustack():
 * its keys and values recorded for the consumer (DT_ACT_AGGSAMPLE). */
void dt_cg_agg_sample(dt_cg_t *cx, const dt_aggdesc_t *agg, dt_node_t *keys,
		      dt_node_t *v, dt_node_t *w, int line)
{
	dt_actdesc_t *ad = dt_cg_act_new(cx, DT_ACT_AGGSAMPLE, line);

	mark_action(cx, cx->nacts - 1);
	ad->aggs = dt_zalloc(sizeof(int));
	ad->aggs[0] = agg->id;
	ad->naggs = 1;
	for (dt_node_t *k = keys; k != NULL; k = k->next) {
		if (!dt_check_is_stack_call(k)) {
			record_value(cx, ad, k);
			continue;
		}
		dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);
		if (strcmp(k->name, "ustack") == 0) {
			record_usample(cx, rd, k);
		} else {
			dt_cg_stack_desc(cx->st, k, rd);
			rd->offset = dt_cg_rec_alloc(cx, rd->size);
			dt_cg_stack(cx, k, rd, rec_mst_off(cx, rd->offset));
		}
	}
	if (v != NULL)
		record_value(cx, ad, v);
	if (w != NULL)
		record_value(cx, ad, w);
}

static const dt_actkind_t dt_actkinds[] = {
	[DT_F_TRACE] = DT_ACT_TRACE, [DT_F_PRINTF] = DT_ACT_PRINTF,
	[DT_F_EXIT] = DT_ACT_EXIT, [DT_F_TRACEMEM] = DT_ACT_TRACEMEM,
	[DT_F_PRINTA] = DT_ACT_PRINTA, [DT_F_SYSTEM] = DT_ACT_SYSTEM,
	[DT_F_RAISE] = DT_ACT_RAISE, [DT_F_STOP] = DT_ACT_STOP,
	[DT_F_CLEAR] = DT_ACT_CLEAR, [DT_F_TRUNC] = DT_ACT_TRUNC,
	[DT_F_NORMALIZE] = DT_ACT_NORMALIZE,
	[DT_F_DENORMALIZE] = DT_ACT_DENORMALIZE,
	[DT_F_SETOPT] = DT_ACT_SETOPT, [DT_F_STACK] = DT_ACT_STACK,
	[DT_F_USTACK] = DT_ACT_USTACK, [DT_F_UFUNC] = DT_ACT_UADDR,
	[DT_F_USYM] = DT_ACT_UADDR, [DT_F_UMOD] = DT_ACT_UADDR,
	[DT_F_UADDR] = DT_ACT_UADDR, [DT_F_FREOPEN] = DT_ACT_FREOPEN,
	[DT_F_FTRUNCATE] = DT_ACT_FTRUNCATE, [DT_F_PRINTM] = DT_ACT_PRINTM,
	[DT_F_SPECULATE] = DT_ACT_SPECULATE, [DT_F_COMMIT] = DT_ACT_COMMIT,
	[DT_F_DISCARD] = DT_ACT_DISCARD, [DT_F_PRINT] = DT_ACT_PRINT,
};

void dt_cg_action(dt_cg_t *cx, dt_node_t *call)
{
	const dt_funcinfo_t *fi = dt_func_lookup(call->name);
	dt_node_t *a = call->args;

	if (fi->func == DT_F_RAISE || fi->func == DT_F_STOP) {
		act_signal(cx, a, SIGSTOP);	/* stop(): SIGSTOP */
		return;
	}
	dt_actdesc_t *ad = dt_cg_act_new(cx, dt_actkinds[fi->func],
					 call->line);
	if (fi->func != DT_F_EXIT)
		mark_action(cx, cx->nacts - 1);
	switch (fi->func) {
	case DT_F_TRACE:
		record_value(cx, ad, a);
		break;
	case DT_F_PRINT:
		record_print(cx, ad, a);
		break;
	case DT_F_EXIT:
		record_value(cx, ad, a);
		act_exit_state(cx);
		break;
	case DT_F_PRINTF:
	case DT_F_SYSTEM:
	case DT_F_FREOPEN:
		ad->fmt = dt_strdup(a->str);
		record_printf_args(cx, ad, a);
		break;
	case DT_F_FTRUNCATE:
		break;
	case DT_F_SPECULATE:
		dt_cg_speculate(cx, a);
		break;
	case DT_F_COMMIT: case DT_F_DISCARD:
		record_value(cx, ad, a);
		dt_cg_spec_id_check(cx, rec_mst_off(cx, ad->recs[0].offset));
		break;
	case DT_F_PRINTA:
		if (a->kind == DT_N_STRING)
			ad->fmt = dt_strdup(a->str);
		act_aggs(cx, ad, a);
		break;
	case DT_F_CLEAR: case DT_F_DENORMALIZE: case DT_F_TRUNC:
	case DT_F_NORMALIZE:
		act_aggs(cx, ad, a);
		if (a->next != NULL)
			record_value(cx, ad, a->next);
		break;
	case DT_F_SETOPT:
		act_strings(cx, ad, a);
		break;
	case DT_F_TRACEMEM:
	case DT_F_PRINTM:
		act_tracemem(cx, ad, call);
		break;
	case DT_F_STACK: case DT_F_USTACK:
	case DT_F_UFUNC: case DT_F_USYM: case DT_F_UMOD: case DT_F_UADDR:
		act_stack(cx, ad, call);
		break;
	default:
		dt_cg_ice(cx, "action");
	}
}
