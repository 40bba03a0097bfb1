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
 * stack() and ustack() record bpf_get_stack()'s PCs (a user stack after
 * the pid); the same code builds them as aggregation keys.
 */
#include <signal.h>
#include <string.h>

#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)

static uint32_t rec_mst_off(dt_cg_t *cx, uint32_t data_off)
{
	return cx->st->off_rec + (uint32_t)sizeof(dt_rechdr_t) + data_off;
}

/* Record the value of expression a: integer, string or user memory. */
static void record_value(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *a)
{
	dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);
	dt_type_t *t = a->type;
	uint32_t ntemps = cx->ntemps;
	int reg = dt_cg_expr(cx, a);

	rd->type = t;
	if (dt_check_is_string(t)) {
		rd->kind = DT_RK_STRING;
		rd->size = cx->st->strsize;
		rd->offset = dt_cg_rec_alloc(cx, rd->size);
		dt_cg_copy_str(cx, rec_mst_off(cx, rd->offset), reg);
	} else if (dt_type_is_scalar(t)) {
		rd->kind = DT_RK_INT;
		rd->size = t->kind == DT_TK_PTR ? 8 : (uint32_t)t->size;
		rd->is_signed = t->kind != DT_TK_PTR && t->is_signed;
		rd->offset = dt_cg_rec_alloc(cx, 8);
		EMIT(DT_STORE(BPF_DW, DT_R9,
			      (int16_t)rec_mst_off(cx, rd->offset), reg));
	} else {
		/* a struct, union or array in user memory: its bytes */
		rd->kind = DT_RK_MEM;
		rd->size = (uint32_t)t->size;
		rd->offset = dt_cg_rec_alloc(cx, rd->size);
		dt_cg_mst_ptr(cx, DT_R1, rec_mst_off(cx, rd->offset));
		EMIT(DT_MOV64_IMM(DT_R2, (int32_t)rd->size));
		EMIT(DT_MOV64_REG(DT_R3, reg));
		dt_cg_probe_read(cx, false);
		dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, reg);
	}
	dt_regs_give(cx, reg);
	cx->ntemps = ntemps;	/* the value is in the record now */
}

/* ustack(n) keeps n frames (ustackframes), stack(n) n (stackframes). */
#define DT_USTACK_FRAMES	100
#define DT_KSTACK_FRAMES	20

bool dt_cg_is_stack_call(const dt_node_t *n)
{
	return n->kind == DT_N_CALL && (strcmp(n->name, "ustack") == 0 ||
					strcmp(n->name, "stack") == 0);
}

/* The frames a stack() or ustack() call asks for (checked constant). */
static uint32_t stack_frames(const dt_node_t *call)
{
	if (call->args != NULL)
		return (uint32_t)call->args->ival;
	return strcmp(call->name, "ustack") == 0 ? DT_USTACK_FRAMES :
						   DT_KSTACK_FRAMES;
}

void dt_cg_stack_desc(const dt_node_t *call, dt_recdesc_t *rd)
{
	bool user = strcmp(call->name, "ustack") == 0;

	rd->kind = user ? DT_RK_USTACK : DT_RK_KSTACK;
	rd->arg = stack_frames(call);
	rd->size = 8 * (rd->arg + (user ? 1 : 0));
}

/* Whether every probe of the clause fires at a function's entry (as its
 * provider says), where the caller may be missing from a frame-pointer
 * walk (see user_stack). */
static bool at_function_entry(const dt_cg_t *cx)
{
	if (cx->nprobes == 0)
		return false;
	for (int i = 0; i < cx->nprobes; i++) {
		const dtrace_probe_t *p = cx->probes[i];
		if (!(p->attr & DTRACE_PROBE_AT_ENTRY))
			return false;
	}
	return true;
}

/* Emit: bpf_get_stack(ctx, mst + off, frames * 8, flags). */
static void get_stack(dt_cg_t *cx, uint32_t off, uint32_t frames,
		      uint64_t flags)
{
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_FP, DT_FRAME_CTX));
	dt_cg_mst_ptr(cx, DT_R2, off);
	EMIT(DT_MOV64_IMM(DT_R3, (int32_t)(frames * 8)));
	EMIT(DT_MOV64_IMM(DT_R4, (int32_t)flags));
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_stack));
}

/*
 * Emit: the user PCs at off.  At a function's entry the function has not
 * pushed its frame yet, so the frame-pointer walk goes from the probed PC
 * straight to the caller's caller; the caller's return address is the word
 * at the top of the stack.  The kernel inserts it itself when the function
 * starts with push %rbp, not otherwise (leaf functions).  So: walk into the
 * record one slot further, then move the probed PC down and put the return
 * address between; if the kernel already had it as the second frame, walk
 * again in place.
 */
static void user_stack(dt_cg_t *cx, uint32_t off, uint32_t frames)
{
	uint32_t ret = cx->st->off_scratch + 16;
	int plain = dt_as_label(cx->as), done = dt_as_label(cx->as);

	if (!at_function_entry(cx) || frames < 2) {
		get_stack(cx, off, frames, BPF_F_USER_STACK);
		return;
	}
	dt_cg_user_sp_word(cx, ret);
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)off, 0));
	get_stack(cx, off + 8, frames - 1, BPF_F_USER_STACK);
	/* r1 = the return address, r2 = the probed PC, r3 = the next frame */
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R9, (int16_t)ret));
	EMIT(DT_LOAD(BPF_DW, DT_R2, DT_R9, (int16_t)(off + 8)));
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)(off + 16)));
	dt_as_jump(cx->as, BPF_JEQ, DT_R1, 0, plain);
	dt_as_jump(cx->as, BPF_JEQ, DT_R2, 0, done);	/* no stack */
	dt_as_jump_reg(cx->as, BPF_JEQ, DT_R3, DT_R1, plain);
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)off, DT_R2));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)(off + 8), DT_R1));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, plain);
	get_stack(cx, off, frames, BPF_F_USER_STACK);
	dt_as_place(cx->as, done);
}

/*
 * Emit: the stack record rd at mstate offset off.  A user stack starts
 * with the pid (the consumer symbolizes against its modules).
 * bpf_get_stack() zero-fills what it does not write, and the whole buffer
 * on failure, so the PCs are always 0-terminated or fill the record.
 */
void dt_cg_stack(dt_cg_t *cx, const dt_recdesc_t *rd, uint32_t off)
{
	if (rd->kind == DT_RK_KSTACK) {
		get_stack(cx, off, rd->arg, 0);
		return;
	}
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R0, 32));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)off, DT_R0));
	user_stack(cx, off + 8, rd->arg);
}

static void act_stack(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *call)
{
	dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);

	dt_cg_stack_desc(call, rd);
	rd->offset = dt_cg_rec_alloc(cx, rd->size);
	dt_cg_stack(cx, rd, rec_mst_off(cx, rd->offset));
}

static void act_tracemem(dt_cg_t *cx, dt_actdesc_t *ad, dt_node_t *call)
{
	dt_recdesc_t *rd = dt_cg_rec_new(cx, ad);
	int reg = dt_cg_expr(cx, call->args);

	rd->kind = DT_RK_MEM;
	rd->size = (uint32_t)call->args->next->ival;
	rd->arg = rd->size;
	rd->type = call->args->type;
	rd->offset = dt_cg_rec_alloc(cx, rd->size);
	dt_cg_mst_ptr(cx, DT_R1, rec_mst_off(cx, rd->offset));
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)rd->size));
	EMIT(DT_MOV64_REG(DT_R3, reg));
	dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, reg);
	dt_regs_give(cx, reg);
}

/* exit(): besides its record, stop every probe but END from now on. */
static void act_exit_state(dt_cg_t *cx)
{
	int skip = dt_as_label(cx->as);

	dt_cg_array_value(cx, dt_cg_map(cx->st, "state", BPF_MAP_TYPE_ARRAY,
					4, 8, DT_STATE_NSLOTS), skip);
	EMIT(DT_STORE_IMM(BPF_DW, DT_R0, 0, DT_ACTIVITY_DRAINING));
	dt_as_place(cx->as, skip);
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

static const dt_actkind_t dt_actkinds[] = {
	[DT_F_TRACE] = DT_ACT_TRACE, [DT_F_PRINTF] = DT_ACT_PRINTF,
	[DT_F_EXIT] = DT_ACT_EXIT, [DT_F_TRACEMEM] = DT_ACT_TRACEMEM,
	[DT_F_PRINTA] = DT_ACT_PRINTA, [DT_F_SYSTEM] = DT_ACT_SYSTEM,
	[DT_F_RAISE] = DT_ACT_RAISE, [DT_F_STOP] = DT_ACT_STOP,
	[DT_F_CLEAR] = DT_ACT_CLEAR, [DT_F_TRUNC] = DT_ACT_TRUNC,
	[DT_F_NORMALIZE] = DT_ACT_NORMALIZE,
	[DT_F_DENORMALIZE] = DT_ACT_DENORMALIZE,
	[DT_F_SETOPT] = DT_ACT_SETOPT, [DT_F_STACK] = DT_ACT_STACK,
	[DT_F_USTACK] = DT_ACT_USTACK,
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
	mark_action(cx, cx->nacts - 1);
	switch (fi->func) {
	case DT_F_TRACE:
		record_value(cx, ad, a);
		break;
	case DT_F_EXIT:
		record_value(cx, ad, a);
		act_exit_state(cx);
		break;
	case DT_F_PRINTF:
	case DT_F_SYSTEM:
		ad->fmt = dt_strdup(a->str);
		for (dt_node_t *x = a->next; x != NULL; x = x->next)
			record_value(cx, ad, x);
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
		act_tracemem(cx, ad, call);
		break;
	case DT_F_STACK: case DT_F_USTACK:
		act_stack(cx, ad, call);
		break;
	default:
		dt_cg_ice(cx, "action");
	}
}
