/* SPDX-License-Identifier: MIT */
/*
 * dt_opt.c: a function's values forwarded from the context, and its dead
 * code dropped.
 *
 * The prefilter (dt_prog_prefilter.c) runs a provider's trampoline into a copy of
 * the mstate on its stack, then a predicate that reads the copy back: each
 * argument it tests costs a load from the context, a store to the stack
 * and a load from the stack, besides the moves and spills of the
 * predicate's own prologue.  dt_opt_function() makes such a function read
 * the context where it uses a value, then drops what no longer matters:
 * stores to the stack that nothing reads, loads and arithmetic whose
 * results nothing uses.  The predicate then tests the argument as a
 * program written by hand for it would.
 *
 * Two passes over the function's control flow graph:
 *  - forward, what each register and 8-byte stack slot holds where it is
 *    known: the context, an address in the frame, or a double word loaded
 *    from the context.  A double word loaded from a slot that holds one
 *    loaded from the context is loaded from the context instead, through a
 *    register that holds it there; a word or double word loaded back from
 *    the frame just after it was stored there is moved from the register
 *    stored (the USDT prefilter's attach cookie, stored into the firing
 *    key and read back); a move of the context, or of an address in the
 *    frame, into a register that holds it already goes.
 *  - backward, which registers and stack bytes are live; an instruction
 *    with no effect but its results, whose results are all dead, becomes a
 *    no-op (ja +0, which the verifier removes), so that no instruction
 *    moves: labels are resolved and map relocations name indices.
 *
 * Both are conservative.  A call (helper or subprogram) may read and write
 * the whole stack and the context it was given, but for a few helpers
 * whose arguments cannot point to the stack (call_plain_args()); a value
 * a conditional jump tested is not forwarded (the verifier knows its
 * bounds from the test, and would not know them of a new load); memory
 * reached through a register not known to hold the frame or the context
 * may be the stack.
 * Jumps, calls, exits, map loads, atomics and stores outside the frame
 * are never dropped.  A function with an instruction not understood here,
 * or a jump out of it, is left as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "dt_opt.h"

#ifndef BPF_MEMSX
#define BPF_MEMSX	0x80	/* sign-extending loads (Linux 6.6) */
#endif
#ifndef BPF_JCOND
#define BPF_JCOND	0xe0	/* may_goto (Linux 6.9) */
#endif

#define OPT_MAX_INSNS	4096	/* larger functions are left alone */
#define OPT_TAIL_MAX_INSNS 1024	/* dt_opt_caller_saved_tail()'s scan is
				   quadratic; prefilters are short */
#define OPT_STACK	512	/* the frame: fp - 512 .. fp - 1 */
#define OPT_SLOTS	(OPT_STACK / 8)
#define OPT_NREGS	11	/* r0 .. r9, r10 (the frame pointer) */

/* What a register or a stack slot is known to hold. */
typedef enum opt_kind {
	OPT_UNKNOWN,
	OPT_CTX,		/* the program's context */
	OPT_FRAME,		/* fp + off */
	OPT_CTX_DW		/* the double word at ctx + off */
} opt_kind_t;

typedef struct opt_val {
	opt_kind_t kind;
	int32_t off;
} opt_val_t;

typedef struct opt_state {
	bool reached;
	opt_val_t reg[OPT_NREGS];
	opt_val_t slot[OPT_SLOTS];	/* slot i: fp - 512 + 8 * i */
} opt_state_t;

/* Live registers (bit r) and stack bytes (bit b: fp - 512 + b). */
typedef struct opt_live {
	uint16_t regs;
	uint64_t stack[OPT_STACK / 64];
} opt_live_t;

typedef struct opt_fn {
	struct bpf_insn *insns;	/* the function's, from its first */
	uint32_t n;
	opt_state_t *in;	/* the state on entry to each instruction */
} opt_fn_t;

static const opt_val_t unknown = { OPT_UNKNOWN, 0 };

static bool val_eq(opt_val_t a, opt_val_t b)
{
	return a.kind == b.kind &&
	       (a.kind == OPT_UNKNOWN || a.kind == OPT_CTX || a.off == b.off);
}

static bool is_ld_imm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/* The number of slots the instruction takes (ld_imm64: 2). */
static uint32_t insn_len(const struct bpf_insn *in)
{
	return is_ld_imm64(in) ? 2 : 1;
}

static bool is_jump_class(uint8_t cls)
{
	return cls == BPF_JMP || cls == BPF_JMP32;
}

static bool is_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL);
}

static bool is_exit(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_EXIT);
}

/* The target of a jump at i (not a call or an exit). */
static int64_t jump_target(const struct bpf_insn *in, uint32_t i)
{
	if (in->code == (BPF_JMP32 | BPF_JA))
		return (int64_t)i + 1 + in->imm;
	return (int64_t)i + 1 + in->off;
}

static bool is_goto(const struct bpf_insn *in)
{
	return BPF_OP(in->code) == BPF_JA && is_jump_class(BPF_CLASS(in->code));
}

/* The number of arguments of the helper the call in makes when none of
 * them may point to the stack (the context, or numbers), so that the
 * call neither reads nor writes the stack nor the context; -1 for any
 * other call. */
static int call_plain_args(const struct bpf_insn *in)
{
	if (in->src_reg != 0)
		return -1;	/* a subprogram or a kernel function */
	switch (in->imm) {
	case BPF_FUNC_get_current_pid_tgid:
	case BPF_FUNC_get_smp_processor_id:
	case BPF_FUNC_ktime_get_ns:
		return 0;
	case BPF_FUNC_get_attach_cookie:
		return 1;
	default:
		return -1;
	}
}

/* Marks in target[i] (n of them, zeroed) each instruction of insns that
 * a jump lands on. */
static void mark_jump_targets(const struct bpf_insn *insns, uint32_t n,
			      bool *target)
{
	for (uint32_t i = 0; i < n; i += insn_len(&insns[i])) {
		const struct bpf_insn *in = &insns[i];
		int64_t t;
		if (!is_jump_class(BPF_CLASS(in->code)) || is_call(in) ||
		    is_exit(in))
			continue;
		t = jump_target(in, i);
		if (t >= 0 && t < n)
			target[t] = true;
	}
}

int dt_insn_access_size(const struct bpf_insn *in)
{
	switch (BPF_SIZE(in->code)) {
	case BPF_B:
		return 1;
	case BPF_H:
		return 2;
	case BPF_W:
		return 4;
	default:
		return 8;
	}
}

/* Whether the function's instructions are all of the forms this file
 * knows, with registers in range, and its jumps stay inside it. */
static bool fn_understood(const opt_fn_t *f)
{
	for (uint32_t i = 0; i < f->n; i += insn_len(&f->insns[i])) {
		const struct bpf_insn *in = &f->insns[i];
		uint8_t cls = BPF_CLASS(in->code), mode = BPF_MODE(in->code);

		if (in->dst_reg >= OPT_NREGS || in->src_reg >= OPT_NREGS)
			return false;
		switch (cls) {
		case BPF_ALU:
		case BPF_ALU64:
			break;
		case BPF_LD:
			if (!is_ld_imm64(in) || i + 1 >= f->n)
				return false;
			break;
		case BPF_LDX:
			if (mode != BPF_MEM && mode != BPF_MEMSX)
				return false;
			break;
		case BPF_ST:
			if (mode != BPF_MEM)
				return false;
			break;
		case BPF_STX:
			if (mode != BPF_MEM && mode != BPF_ATOMIC)
				return false;
			break;
		case BPF_JMP:
		case BPF_JMP32:
			if (BPF_OP(in->code) == BPF_JCOND)
				return false;
			if (is_call(in) || is_exit(in))
				break;
			int64_t t = jump_target(in, i);
			if (t < 0 || t >= f->n)
				return false;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* The slot of the 8 bytes at fp + off, or -1 when they are not one
 * aligned slot of the frame. */
static int frame_slot(int64_t off)
{
	if (off < -OPT_STACK || off > -8 || off % 8 != 0)
		return -1;
	return (int)((off + OPT_STACK) / 8);
}

/* The address of a memory access at in, in the state s: the frame's
 * offset in *off when its base is the frame. */
static opt_kind_t access_base(const opt_state_t *s, const struct bpf_insn *in,
			      int base, int64_t *off)
{
	opt_val_t b = s->reg[base];

	*off = (int64_t)b.off + in->off;
	return b.kind;
}

/* Forget what the slots that [off, off + size) of the frame overlap hold;
 * the whole frame when the base is not known. */
static void forget_slots(opt_state_t *s, opt_kind_t base, int64_t off,
			 int size)
{
	for (int i = 0; i < OPT_SLOTS; i++) {
		int64_t lo = (int64_t)i * 8 - OPT_STACK;
		if (base != OPT_FRAME || (lo < off + size && off < lo + 8))
			s->slot[i] = unknown;
	}
}

/* A call may change the stack and the context: forget all that came from
 * either, and the registers it clobbers; a plain one (call_plain_args())
 * clobbers only the registers. */
static void forget_call(opt_state_t *s, const struct bpf_insn *in)
{
	for (int r = 0; r <= 5; r++)
		s->reg[r] = unknown;
	if (call_plain_args(in) >= 0)
		return;
	for (int r = 6; r < OPT_NREGS; r++)
		if (s->reg[r].kind == OPT_CTX_DW)
			s->reg[r] = unknown;
	forget_slots(s, OPT_UNKNOWN, 0, 0);
}

static void transfer_alu(opt_state_t *s, const struct bpf_insn *in)
{
	opt_val_t *d = &s->reg[in->dst_reg];

	if (in->code == (BPF_ALU64 | BPF_MOV | BPF_X) && in->off == 0)
		*d = s->reg[in->src_reg];
	else if (in->code == (BPF_ALU64 | BPF_ADD | BPF_K) &&
		 d->kind == OPT_FRAME)
		d->off += in->imm;
	else
		*d = unknown;
}

static void transfer_load(opt_state_t *s, const struct bpf_insn *in)
{
	int64_t off;
	opt_kind_t base = access_base(s, in, in->src_reg, &off);
	opt_val_t v = unknown;
	bool dw = BPF_MODE(in->code) == BPF_MEM && dt_insn_access_size(in) == 8;

	if (dw && base == OPT_CTX)
		v = (opt_val_t){ OPT_CTX_DW, in->off };
	else if (dw && base == OPT_FRAME && frame_slot(off) >= 0)
		v = s->slot[frame_slot(off)];
	s->reg[in->dst_reg] = v;
}

static void transfer_store(opt_state_t *s, const struct bpf_insn *in)
{
	int64_t off;
	opt_kind_t base = access_base(s, in, in->dst_reg, &off);

	forget_slots(s, base, off, dt_insn_access_size(in));
	if (BPF_MODE(in->code) == BPF_ATOMIC) {
		s->reg[in->src_reg] = unknown;	/* the fetching forms */
		s->reg[DT_R0] = unknown;	/* cmpxchg */
		return;
	}
	if (base == OPT_FRAME && BPF_CLASS(in->code) == BPF_STX &&
	    dt_insn_access_size(in) == 8 && frame_slot(off) >= 0)
		s->slot[frame_slot(off)] = s->reg[in->src_reg];
}

/* Forget the places that hold v: a conditional jump that tests a value
 * loaded from the context narrows what the verifier knows of it, in the
 * register and in its copies, and a load from the context in their stead
 * would not be narrowed. */
static void forget_value(opt_state_t *s, opt_val_t v)
{
	for (int r = 0; r < OPT_NREGS; r++)
		if (val_eq(s->reg[r], v))
			s->reg[r] = unknown;
	for (int k = 0; k < OPT_SLOTS; k++)
		if (val_eq(s->slot[k], v))
			s->slot[k] = unknown;
}

static void transfer_jump(opt_state_t *s, const struct bpf_insn *in)
{
	if (is_call(in)) {
		forget_call(s, in);
		return;
	}
	if (is_exit(in) || is_goto(in))
		return;
	if (s->reg[in->dst_reg].kind == OPT_CTX_DW)
		forget_value(s, s->reg[in->dst_reg]);
	if (BPF_SRC(in->code) == BPF_X &&
	    s->reg[in->src_reg].kind == OPT_CTX_DW)
		forget_value(s, s->reg[in->src_reg]);
}

/* The state after the instruction at i, from the state before it. */
static void transfer(opt_state_t *s, const struct bpf_insn *in)
{
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		transfer_alu(s, in);
		break;
	case BPF_LD:
		s->reg[in->dst_reg] = unknown;
		break;
	case BPF_LDX:
		transfer_load(s, in);
		break;
	case BPF_ST:
	case BPF_STX:
		transfer_store(s, in);
		break;
	default:
		transfer_jump(s, in);
		break;
	}
}

/* Merge s into the state on entry to i; whether that changed. */
static bool merge(opt_fn_t *f, uint32_t i, const opt_state_t *s)
{
	opt_state_t *t = &f->in[i];
	bool changed = false;

	if (!t->reached) {
		*t = *s;
		t->reached = true;
		return true;
	}
	for (int r = 0; r < OPT_NREGS; r++)
		if (!val_eq(t->reg[r], s->reg[r]) &&
		    t->reg[r].kind != OPT_UNKNOWN) {
			t->reg[r] = unknown;
			changed = true;
		}
	for (int k = 0; k < OPT_SLOTS; k++)
		if (!val_eq(t->slot[k], s->slot[k]) &&
		    t->slot[k].kind != OPT_UNKNOWN) {
			t->slot[k] = unknown;
			changed = true;
		}
	return changed;
}

/* The successors of i: up to 2, in succ; returns their number. */
static int successors(const opt_fn_t *f, uint32_t i, uint32_t succ[2])
{
	const struct bpf_insn *in = &f->insns[i];
	int n = 0;

	if (is_exit(in))
		return 0;
	if (is_jump_class(BPF_CLASS(in->code)) && !is_call(in)) {
		succ[n++] = (uint32_t)jump_target(in, i);
		if (is_goto(in))
			return n;
	}
	if (i + insn_len(in) < f->n)
		succ[n++] = i + insn_len(in);
	return n;
}

/* The forward pass: f->in[] for every instruction reached. */
static void forward(opt_fn_t *f, bool ctx_in_r1)
{
	uint32_t *work = malloc(f->n * sizeof(*work));
	bool *queued = calloc(f->n, sizeof(*queued));
	uint32_t nwork = 0;
	opt_state_t s;

	memset(f->in, 0, f->n * sizeof(*f->in));
	if (work == NULL || queued == NULL)
		goto out;
	memset(&s, 0, sizeof(s));
	s.reg[DT_FP] = (opt_val_t){ OPT_FRAME, 0 };
	if (ctx_in_r1)
		s.reg[DT_R1] = (opt_val_t){ OPT_CTX, 0 };
	merge(f, 0, &s);
	work[nwork++] = 0;
	queued[0] = true;
	while (nwork > 0) {
		uint32_t i = work[--nwork], succ[2];
		queued[i] = false;
		s = f->in[i];
		transfer(&s, &f->insns[i]);
		for (int k = successors(f, i, succ) - 1; k >= 0; k--)
			if (merge(f, succ[k], &s) && !queued[succ[k]]) {
				queued[succ[k]] = true;
				work[nwork++] = succ[k];
			}
	}
out:
	free(work);
	free(queued);
}

/* A register that holds the context in s, or -1. */
static int ctx_register(const opt_state_t *s)
{
	for (int r = 0; r < DT_FP; r++)
		if (s->reg[r].kind == OPT_CTX)
			return r;
	return -1;
}

/* Whether the instruction, with the state s before it, loads a double
 * word from the frame that holds one loaded from the context; if so, the
 * load to make instead: from *reg, which holds the context, at *off. */
static bool load_forwardable(const opt_state_t *s, const struct bpf_insn *in,
			     int *reg, int16_t *off)
{
	int64_t at;

	if (BPF_CLASS(in->code) != BPF_LDX || BPF_MODE(in->code) != BPF_MEM ||
	    dt_insn_access_size(in) != 8 ||
	    access_base(s, in, in->src_reg, &at) != OPT_FRAME ||
	    frame_slot(at) < 0)
		return false;
	opt_val_t v = s->slot[frame_slot(at)];
	*reg = ctx_register(s);
	*off = (int16_t)v.off;
	return v.kind == OPT_CTX_DW && *reg >= 0;
}

/* Whether the instruction, with the state s before it, moves into a
 * register the pointer it holds already.  (Not a number: the verifier
 * may know more of the one moved, from a test, than of the one there.) */
static bool move_redundant(const opt_state_t *s, const struct bpf_insn *in)
{
	opt_kind_t k = s->reg[in->dst_reg].kind;

	return in->code == (BPF_ALU64 | BPF_MOV | BPF_X) && in->off == 0 &&
	       (k == OPT_CTX || k == OPT_FRAME) &&
	       val_eq(s->reg[in->dst_reg], s->reg[in->src_reg]);
}

/* Whether the load ld reads back, from the frame, the 4 or 8 bytes that
 * the store st just before it wrote there (with the state s before st),
 * no jump landing between them: it may then move the register stored,
 * as the stack would have given it (a word zero-extended). */
static bool load_reads_store(const opt_state_t *s, const struct bpf_insn *st,
			     const struct bpf_insn *ld)
{
	int64_t off;
	int size = dt_insn_access_size(st);

	return BPF_CLASS(st->code) == BPF_STX &&
	       BPF_MODE(st->code) == BPF_MEM && (size == 4 || size == 8) &&
	       ld->code == (BPF_LDX | BPF_MEM | BPF_SIZE(st->code)) &&
	       ld->src_reg == st->dst_reg && ld->off == st->off &&
	       st->src_reg != DT_FP &&
	       access_base(s, st, st->dst_reg, &off) == OPT_FRAME;
}

/* The loads of forwardable values made from the context, or moves of the
 * register just stored, and redundant moves made no-ops.  Returns how
 * many instructions changed, or -1 when out of memory. */
static int forward_values(opt_fn_t *f)
{
	const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };
	bool *target = calloc(f->n, sizeof(*target));
	int n = 0;

	if (target == NULL)
		return -1;
	mark_jump_targets(f->insns, f->n, target);
	for (uint32_t i = 0; i < f->n; i += insn_len(&f->insns[i])) {
		struct bpf_insn *in = &f->insns[i];
		int reg;
		int16_t off;

		if (!f->in[i].reached)
			continue;
		if (load_forwardable(&f->in[i], in, &reg, &off)) {
			in->src_reg = (uint8_t)reg;
			in->off = off;
			n++;
		} else if (move_redundant(&f->in[i], in)) {
			*in = nop;
			n++;
		} else if (i > 0 && !target[i] &&
			   load_reads_store(&f->in[i - 1], &f->insns[i - 1],
					    in)) {
			uint8_t cls = BPF_SIZE(in->code) == BPF_DW ? BPF_ALU64
								    : BPF_ALU;
			*in = DT_INSN(cls | BPF_MOV | BPF_X, in->dst_reg,
				      f->insns[i - 1].src_reg, 0, 0);
			n++;
		}
	}
	free(target);
	return n;
}

static void live_all_stack(opt_live_t *l)
{
	memset(l->stack, 0xff, sizeof(l->stack));
}

/* Bytes [off, off + size) of the frame in l: set (on) or cleared. */
static void live_bytes(opt_live_t *l, int64_t off, int size, bool on)
{
	for (int64_t b = off + OPT_STACK; b < off + OPT_STACK + size; b++) {
		if (b < 0 || b >= OPT_STACK)
			continue;
		uint64_t bit = 1ull << (b % 64);
		if (on)
			l->stack[b / 64] |= bit;
		else
			l->stack[b / 64] &= ~bit;
	}
}

static bool live_any_bytes(const opt_live_t *l, int64_t off, int size)
{
	for (int64_t b = off + OPT_STACK; b < off + OPT_STACK + size; b++)
		if (b >= 0 && b < OPT_STACK &&
		    (l->stack[b / 64] >> (b % 64) & 1))
			return true;
	return false;
}

/* Whether the instruction at i only computes its results (a register, or
 * the bytes of the frame it stores to), so that it may be dropped when
 * they are dead; *frame_off is set for a store into the frame. */
static bool droppable(const opt_fn_t *f, uint32_t i, int64_t *frame_off)
{
	const struct bpf_insn *in = &f->insns[i];
	const opt_state_t *s = &f->in[i];

	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
	case BPF_LDX:
		return in->dst_reg != DT_FP;
	case BPF_ST:
	case BPF_STX:
		return BPF_MODE(in->code) == BPF_MEM && s->reached &&
		       access_base(s, in, in->dst_reg, frame_off) ==
			       OPT_FRAME &&
		       *frame_off >= -OPT_STACK &&
		       *frame_off + dt_insn_access_size(in) <= 0;
	default:
		return false;
	}
}

/* Whether the results of the droppable instruction at i are dead in
 * out, the liveness after it. */
static bool results_dead(const opt_fn_t *f, uint32_t i, int64_t frame_off,
			 const opt_live_t *out)
{
	const struct bpf_insn *in = &f->insns[i];
	uint8_t cls = BPF_CLASS(in->code);

	if (cls == BPF_ST || cls == BPF_STX)
		return !live_any_bytes(out, frame_off, dt_insn_access_size(in));
	return !(out->regs >> in->dst_reg & 1);
}

/* The memory a load or an atomic at i may read, added to l. */
static void live_read(const opt_fn_t *f, uint32_t i, int base_reg,
		      opt_live_t *l)
{
	const struct bpf_insn *in = &f->insns[i];
	int64_t off;
	opt_kind_t base = f->in[i].reached
		? access_base(&f->in[i], in, base_reg, &off) : OPT_UNKNOWN;

	if (base == OPT_FRAME)
		live_bytes(l, off, dt_insn_access_size(in), true);
	else if (base != OPT_CTX)
		live_all_stack(l);
}

/* The liveness before a kept instruction at i, from out, after it. */
static void live_before(const opt_fn_t *f, uint32_t i, const opt_live_t *out,
			opt_live_t *l)
{
	const struct bpf_insn *in = &f->insns[i];
	uint8_t cls = BPF_CLASS(in->code);
	uint16_t d = (uint16_t)(1u << in->dst_reg);
	uint16_t s = (uint16_t)(1u << in->src_reg);
	int64_t off;

	*l = *out;
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		l->regs &= (uint16_t)~d;
		if (BPF_OP(in->code) != BPF_MOV)
			l->regs |= d;
		if (BPF_SRC(in->code) == BPF_X &&
		    BPF_OP(in->code) != BPF_NEG && BPF_OP(in->code) != BPF_END)
			l->regs |= s;
		break;
	case BPF_LD:
		l->regs &= (uint16_t)~d;
		break;
	case BPF_LDX:
		l->regs &= (uint16_t)~d;
		live_read(f, i, in->src_reg, l);
		l->regs |= s;
		break;
	case BPF_ST:
	case BPF_STX:
		if (droppable(f, i, &off))
			live_bytes(l, off, dt_insn_access_size(in), false);
		if (BPF_MODE(in->code) == BPF_ATOMIC) {
			live_read(f, i, in->dst_reg, l);
			l->regs |= 1u << DT_R0;
		}
		l->regs |= d;
		if (cls == BPF_STX)
			l->regs |= s;
		break;
	default:
		if (is_exit(in)) {
			l->regs = 1u << DT_R0;
			memset(l->stack, 0, sizeof(l->stack));
		} else if (is_call(in)) {
			int args = call_plain_args(in);
			l->regs &= (uint16_t)~0x3fu;	/* r0 .. r5 */
			if (args < 0) {
				l->regs |= 0x3eu;	/* r1 .. r5 */
				live_all_stack(l);
			} else {
				l->regs |= (uint16_t)(((1u << args) - 1) << 1);
			}
		} else if (!is_goto(in)) {
			l->regs |= d;
			if (BPF_SRC(in->code) == BPF_X)
				l->regs |= s;
		}
		break;
	}
	l->regs |= 1u << DT_FP;
}

static bool live_merge(opt_live_t *t, const opt_live_t *s)
{
	bool changed = (s->regs & ~t->regs) != 0;

	t->regs |= s->regs;
	for (size_t k = 0; k < OPT_STACK / 64; k++) {
		changed |= (s->stack[k] & ~t->stack[k]) != 0;
		t->stack[k] |= s->stack[k];
	}
	return changed;
}

/* Whether the instruction at i is dropped, given out, the liveness after
 * it. */
static bool is_dead(const opt_fn_t *f, uint32_t i, const opt_live_t *out)
{
	int64_t off = 0;

	return f->in[i].reached && droppable(f, i, &off) &&
	       results_dead(f, i, off, out);
}

/* The backward pass, to a fixed point: out[i], the liveness after each
 * instruction, counting only the instructions kept. */
static void backward(const opt_fn_t *f, opt_live_t *out)
{
	bool changed = true;

	memset(out, 0, f->n * sizeof(*out));
	while (changed) {
		changed = false;
		for (uint32_t j = f->n; j-- > 0;) {
			uint32_t succ[2];
			opt_live_t in;
			if (j > 0 && is_ld_imm64(&f->insns[j - 1]))
				continue;	/* its second half */
			for (int k = successors(f, j, succ) - 1; k >= 0; k--) {
				uint32_t t = succ[k];
				if (is_dead(f, t, &out[t]))
					in = out[t];
				else
					live_before(f, t, &out[t], &in);
				changed |= live_merge(&out[j], &in);
			}
		}
	}
}

/* The dead instructions dropped; returns how many. */
static int drop_dead(opt_fn_t *f, const opt_live_t *out)
{
	const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };
	int n = 0;

	for (uint32_t i = 0; i < f->n; i += insn_len(&f->insns[i]))
		if (is_dead(f, i, &out[i])) {
			f->insns[i] = nop;
			n++;
		}
	return n;
}

/* The end of the function that starts at start: the next function's
 * start (a subprogram called, or taken as a callback), or the end. */
static uint32_t function_end(const dt_as_t *as, uint32_t start)
{
	uint32_t end = as->ninsns;

	for (uint32_t i = 0; i < as->ninsns; i += insn_len(&as->insns[i])) {
		const struct bpf_insn *in = &as->insns[i];
		bool sub = (is_call(in) && in->src_reg == BPF_PSEUDO_CALL) ||
			   (is_ld_imm64(in) && in->src_reg == BPF_PSEUDO_FUNC);
		int64_t t = (int64_t)i + 1 + in->imm;
		if (sub && t > start && t < end)
			end = (uint32_t)t;
	}
	return end;
}

int dt_opt_function(dt_as_t *as, uint32_t start, bool ctx_in_r1)
{
	opt_fn_t f = { as->insns + start, function_end(as, start) - start,
		       NULL };
	int n = 0;

	if (as->err != 0 || f.n == 0 || f.n > OPT_MAX_INSNS ||
	    !fn_understood(&f))
		return 0;
	f.in = malloc(f.n * sizeof(*f.in));
	opt_live_t *out = malloc(f.n * sizeof(*out));
	if (f.in != NULL && out != NULL) {
		/* The states hold after the rewrites too: a load moved to
		 * the context yields what it yielded, and a move dropped
		 * left its register as it was. */
		forward(&f, ctx_in_r1);
		n = forward_values(&f);
		if (n >= 0) {
			backward(&f, out);
			n += drop_dead(&f, out);
		} else {
			n = 0;
		}
	}
	free(f.in);
	free(out);
	return n;
}

/*
 * Caller-saved registers past the last call.
 *
 * The JIT saves, in a function's prologue, each callee-saved register the
 * function writes.  A predicate keeps its values in r6 to r9, which the
 * prefilter then writes after its last call (the attach cookie's helper),
 * where no call can clobber r2 to r5.  Such a value, with its uses, moves
 * to a caller-saved register free there.
 */

/* The registers in names, as a mask (a jump's offset, a call's kind and a
 * 64-bit load's kind are not registers). */
static uint16_t insn_regs(const struct bpf_insn *in)
{
	uint8_t cls = BPF_CLASS(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;
	uint16_t m = 0;

	if (is_ld_imm64(in))
		return (uint16_t)(1u << in->dst_reg);
	if (is_call(in) || is_exit(in) || is_goto(in))
		return 0;
	m = (uint16_t)(1u << in->dst_reg);
	if (cls == BPF_LDX || cls == BPF_STX ||
	    ((cls == BPF_ALU || cls == BPF_ALU64 || is_jump_class(cls)) && x))
		m |= (uint16_t)(1u << in->src_reg);
	return m;
}

static void insn_rename(struct bpf_insn *in, int from, int to)
{
	uint16_t regs = insn_regs(in);

	if ((regs >> from & 1) && in->dst_reg == from)
		in->dst_reg = (uint8_t)to;
	if ((regs >> from & 1) && in->src_reg == from && !is_ld_imm64(in))
		in->src_reg = (uint8_t)to;
}

/* The registers live on entry to [p, n) of f: at p, and where a jump from
 * before p lands in it; live[] holds each instruction's. */
static uint16_t tail_live_in(const opt_fn_t *f, const uint16_t *live,
			     uint32_t p)
{
	uint16_t m = live[p];

	for (uint32_t j = 0; j < p; j += insn_len(&f->insns[j])) {
		const struct bpf_insn *in = &f->insns[j];
		if (is_jump_class(BPF_CLASS(in->code)) && !is_call(in) &&
		    !is_exit(in) && jump_target(in, j) >= p)
			m |= live[jump_target(in, j)];
	}
	return m;
}

/* The registers [p, n) of f names. */
static uint16_t tail_regs(const opt_fn_t *f, uint32_t p)
{
	uint16_t m = 0;

	for (uint32_t i = p; i < f->n; i += insn_len(&f->insns[i]))
		m |= insn_regs(&f->insns[i]);
	return m;
}

/* r, a register of r6 to r9, moved to one of r2 to r5 from the first
 * instruction past tail where the values it holds are all made there;
 * whether it moved. */
static bool move_to_caller_saved(opt_fn_t *f, const uint16_t *live,
				 uint32_t tail, int r)
{
	for (uint32_t p = tail; p < f->n; p += insn_len(&f->insns[p])) {
		uint16_t regs = tail_regs(f, p), in = tail_live_in(f, live, p);
		if (!(regs >> r & 1))
			return false;	/* not used from p on */
		if (in >> r & 1)
			continue;	/* a value made before p is used */
		for (int to = DT_R2; to <= DT_R5; to++) {
			if ((regs | in) >> to & 1)
				continue;
			for (uint32_t i = p; i < f->n;
			     i += insn_len(&f->insns[i]))
				insn_rename(&f->insns[i], r, to);
			return true;
		}
		return false;
	}
	return false;
}

/* The registers live before each instruction of f, in live[]. */
static void live_regs(const opt_fn_t *f, const opt_live_t *out,
		      uint16_t *live)
{
	for (uint32_t i = 0; i < f->n; i++) {
		opt_live_t l;
		if (is_dead(f, i, &out[i]))
			l = out[i];
		else
			live_before(f, i, &out[i], &l);
		live[i] = l.regs;
	}
}

/* Whether every jump of f goes forward. */
static bool jumps_forward(const opt_fn_t *f)
{
	for (uint32_t i = 0; i < f->n; i += insn_len(&f->insns[i])) {
		const struct bpf_insn *in = &f->insns[i];
		if (is_jump_class(BPF_CLASS(in->code)) && !is_call(in) &&
		    !is_exit(in) && jump_target(in, i) <= i)
			return false;
	}
	return true;
}

int dt_opt_caller_saved_tail(dt_as_t *as, uint32_t start, bool ctx_in_r1)
{
	opt_fn_t f = { as->insns + start, function_end(as, start) - start,
		       NULL };
	uint32_t tail = 0;
	int n = 0;

	if (as->err != 0 || f.n == 0 || f.n > OPT_TAIL_MAX_INSNS ||
	    !fn_understood(&f) || !jumps_forward(&f))
		return 0;
	for (uint32_t i = 0; i < f.n; i += insn_len(&f.insns[i]))
		if (is_call(&f.insns[i]))
			tail = i + 1;
	if (tail >= f.n)
		return 0;
	f.in = malloc(f.n * sizeof(*f.in));
	opt_live_t *out = malloc(f.n * sizeof(*out));
	uint16_t *live = malloc(f.n * sizeof(*live));
	if (f.in != NULL && out != NULL && live != NULL) {
		forward(&f, ctx_in_r1);
		backward(&f, out);
		for (int r = DT_R6; r <= DT_R9; r++) {
			/* Each move changes what is live: measure again. */
			live_regs(&f, out, live);
			if (move_to_caller_saved(&f, live, tail, r)) {
				n++;
				forward(&f, ctx_in_r1);
				backward(&f, out);
			}
		}
	}
	free(f.in);
	free(out);
	free(live);
	return n;
}

/* Whether in sets r0 to the number in its immediate. */
static bool sets_r0_number(const struct bpf_insn *in)
{
	return in->code == (BPF_ALU64 | BPF_MOV | BPF_K) &&
	       in->dst_reg == BPF_REG_0 && in->off == 0;
}

void dt_opt_exit_truths(const dt_as_t *as, int8_t *truth)
{
	bool *target = calloc(as->ninsns, sizeof(*target));

	memset(truth, -1, as->ninsns);
	if (target == NULL)
		return;
	mark_jump_targets(as->insns, as->ninsns, target);
	for (uint32_t i = 1; i < as->ninsns; i++)
		if (!target[i] && is_exit(&as->insns[i]) &&
		    sets_r0_number(&as->insns[i - 1]))
			truth[i] = as->insns[i - 1].imm != 0;
	free(target);
}
