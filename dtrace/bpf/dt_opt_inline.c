/* SPDX-License-Identifier: MIT */
/*
 * dt_opt_inline.c: the optimizer's dataflow over straight-line code, and
 * the rewriting of a function that runs inline at a program's entry.
 *
 * dt_opt_fields_used() follows a base register (and the addresses made
 * from it) through instructions to tell which fields of the memory it
 * points to they read or write, so that code setting a field nobody reads
 * can be dropped (dt_opt_nop()) or moved.  A small function that calls
 * nothing and uses no stack runs inline at a program's entry
 * (dt_opt_inline_at_entry()): its exits become jumps, its callee-saved
 * registers move to caller-saved ones it leaves free
 * (dt_opt_caller_saved_all()), so that the entry saves none.  The
 * program builder's prefilter is the user (dt_prog_prefilter.c).
 */
#include <stdlib.h>
#include <string.h>

#include "dt_opt.h"

/* Which of the fields fs the size bytes at off hold. */
static unsigned fields_at(const dt_opt_fields_t *fs, int64_t off,
			  int64_t size)
{
	unsigned used = 0;

	for (size_t i = 0; i < fs->n; i++)
		if (off < fs->f[i].off + fs->f[i].size &&
		    fs->f[i].off < off + size)
			used |= fs->f[i].bit;
	return used;
}

/* Every field of fs. */
static unsigned fields_all(const dt_opt_fields_t *fs)
{
	unsigned all = 0;

	for (size_t i = 0; i < fs->n; i++)
		all |= fs->f[i].bit;
	return all;
}

/* Whether helper writes, and does not read, the memory of its first
 * argument. */
static bool helper_writes_arg1(int32_t helper)
{
	switch (helper) {
	case BPF_FUNC_probe_read:
	case BPF_FUNC_probe_read_str:
	case BPF_FUNC_probe_read_user:
	case BPF_FUNC_probe_read_user_str:
	case BPF_FUNC_probe_read_kernel:
	case BPF_FUNC_probe_read_kernel_str:
		return true;
	default:
		return false;
	}
}

/* Which fields of fs are read (or written, with stores) through the
 * address of the memory at a base register that the instruction at i (rX
 * = base) makes, all of them when it cannot be told.  The address is followed
 * until it is given to a helper or overwritten, in straight-line code: it
 * may be moved by constants (rX += K), be the base of loads and stores,
 * and be given to a helper, which uses the memory from it upwards (the
 * probe_read helpers only write their destination, where a field written
 * before the trampoline would not matter).  Any other use, a jump while
 * it lives, and living past the instructions, let it go. */
static unsigned address_used(const dt_as_t *as, uint32_t i, uint32_t to,
			     const dt_opt_fields_t *fs, bool stores)
{
	const unsigned all = fields_all(fs);
	const int x = as->insns[i].dst_reg;
	int64_t k = 0;
	unsigned used = 0;

	for (uint32_t j = i + 1; j < to; j++) {
		const struct bpf_insn *in = &as->insns[j];
		uint8_t cls = BPF_CLASS(in->code);
		bool plain = BPF_MODE(in->code) == BPF_MEM;

		if (in->code == (BPF_JMP | BPF_CALL)) {
			if (x > DT_R5)
				continue;	/* kept across the call */
			if (in->src_reg != 0 || k < 0)	/* not a helper */
				return all;
			if (!(x == DT_R1 && helper_writes_arg1(in->imm)))
				used |= fields_at(fs, k, INT16_MAX);
			return used;
		}
		if (cls == BPF_JMP || cls == BPF_JMP32)
			return all;
		if (in->src_reg != x && in->dst_reg != x)
			continue;
		if (in->code == (BPF_ALU64 | BPF_ADD | BPF_K) &&
		    in->dst_reg == x) {
			k += in->imm;
			continue;
		}
		if (plain && cls == BPF_LDX && in->src_reg == x) {
			used |= fields_at(fs, k + in->off,
					  dt_insn_access_size(in));
			if (in->dst_reg == x)
				return used;
			continue;
		}
		if (plain && (cls == BPF_ST || cls == BPF_STX) &&
		    in->dst_reg == x && !(cls == BPF_STX && in->src_reg == x)) {
			if (stores)
				used |= fields_at(fs, k + in->off,
						  dt_insn_access_size(in));
			continue;
		}
		if ((in->code == (BPF_ALU64 | BPF_MOV | BPF_K) ||
		     in->code == (BPF_LD | BPF_IMM | BPF_DW)) &&
		    in->dst_reg == x)
			return used;
		return all;
	}
	return all;	/* alive past the instructions */
}

unsigned dt_opt_fields_used(const dt_as_t *as, uint32_t from, uint32_t to,
			    int base, const dt_opt_fields_t *fs, bool stores)
{
	const unsigned all = fields_all(fs);
	unsigned used = 0;

	for (uint32_t i = from; i < to; i++) {
		const struct bpf_insn *in = &as->insns[i];
		uint8_t cls = BPF_CLASS(in->code);
		bool plain = BPF_MODE(in->code) == BPF_MEM;

		if (in->code == (BPF_ALU64 | BPF_MOV | BPF_X) &&
		    in->src_reg == base && in->dst_reg != base &&
		    in->off == 0) {
			used |= address_used(as, i, to, fs, stores);
			continue;
		}
		bool load = cls == BPF_LDX && in->src_reg == base &&
			    in->dst_reg != base;
		bool store = (cls == BPF_ST || cls == BPF_STX) &&
			     in->dst_reg == base && in->src_reg != base;
		if (plain && (load || store)) {
			if (load || stores)
				used |= fields_at(fs, in->off,
						  dt_insn_access_size(in));
			continue;
		}
		if (in->src_reg == base || in->dst_reg == base)
			return all;
	}
	return used;
}

void dt_opt_nop(dt_as_t *as, uint32_t from, uint32_t to)
{
	const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };

	for (uint32_t i = from; i < to; i++)
		as->insns[i] = nop;
}

/* What a function f calls (function_regs()). */
enum { PF_CALLS_HELPER = 1, PF_CALLS_SUBPROG = 2 };

/* The registers f's instructions name, as a mask (the src_reg of a 64-bit
 * immediate load is a kind, not a register); in *calls, what it calls (a
 * function's address taken counts as a subprogram called). */
static unsigned function_regs(const dt_as_t *f, unsigned *calls)
{
	unsigned used = 0;

	*calls = 0;
	for (uint32_t i = 0; i < f->ninsns; i++) {
		const struct bpf_insn *in = &f->insns[i];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			if (in->src_reg == BPF_PSEUDO_FUNC)
				*calls |= PF_CALLS_SUBPROG;
			used |= 1u << in->dst_reg;
			i++;	/* its second half */
			continue;
		}
		if (in->code == (BPF_JMP | BPF_CALL))
			*calls |= in->src_reg != 0 ? PF_CALLS_SUBPROG :
						     PF_CALLS_HELPER;
		used |= 1u << in->dst_reg | 1u << in->src_reg;
	}
	return used;
}

/* The registers insn in writes, as a mask. */
static unsigned insn_writes(const struct bpf_insn *in)
{
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
	case BPF_LD:
	case BPF_LDX:
		return 1u << in->dst_reg;
	default:
		return 0;	/* stores and jumps read their dst_reg */
	}
}

/* The register of r6 to r9 that the function f copies the context into
 * by its first instruction and writes nowhere else, so that it holds the
 * context all through f; -1 when there is none. */
static int function_ctx_reg(const dt_as_t *f)
{
	const struct bpf_insn *first = f->insns;

	if (f->ninsns == 0 ||
	    first->code != (BPF_ALU64 | BPF_MOV | BPF_X) || first->off != 0 ||
	    first->src_reg != DT_R1 || first->dst_reg < DT_R6 ||
	    first->dst_reg > DT_R9)
		return -1;
	for (uint32_t i = 1; i < f->ninsns; i++) {
		const struct bpf_insn *in = &f->insns[i];
		if (BPF_CLASS(in->code) == BPF_STX &&
		    BPF_MODE(in->code) == BPF_ATOMIC)
			return -1;	/* the fetching forms write src_reg */
		if (insn_writes(in) >> first->dst_reg & 1)
			return -1;
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
			i++;
	}
	return first->dst_reg;
}

/* A register of r6 to r9 that the function f leaves alone, or that holds
 * the context all through it (function_ctx_reg()), to keep the
 * context in while f runs inline at the program's entry; -1 when f may
 * not run there: it calls a subprogram (its exits are then not all its
 * own), uses the stack (the program's whole call chain shares 512 bytes
 * of it, and its stack would count against every clause's), or is
 * too long for a jump from its exits to its end. */
int dt_opt_inline_reg(const dt_as_t *f)
{
	unsigned calls, used;

	if (f->ninsns > INT16_MAX - 2)
		return -1;
	used = function_regs(f, &calls);
	if ((calls & PF_CALLS_SUBPROG) || (used & 1u << DT_FP))
		return -1;
	int ctx = function_ctx_reg(f);
	if (ctx >= 0)
		return ctx;
	for (int r = DT_R6; r <= DT_R9; r++)
		if (!(used & 1u << r))
			return r;
	return -1;
}

/* A caller-saved register of r2 to r5 not in *used, then added to it;
 * -1 when none is left. */
static int caller_saved_free(unsigned *used)
{
	for (int r = DT_R2; r <= DT_R5; r++)
		if (!(*used & 1u << r)) {
			*used |= 1u << r;
			return r;
		}
	return -1;
}

/*
 * The function f, to run inline at the entry of a program whose full
 * path is a function of its own: its uses of r6 to r9 moved to the
 * caller-saved registers it leaves free, so that the entry saves none on
 * the stack (the JIT saves the callee-saved registers a function uses, in
 * its prologue).  Only for a function that calls nothing, which then
 * clobbers no caller-saved register.  *spare: where the context is kept
 * meanwhile, r1 itself when f does not write it.  false when f keeps
 * what it had.
 */
bool dt_opt_caller_saved_all(dt_as_t *f, int *spare)
{
	unsigned calls, written = 0, used = function_regs(f, &calls);
	int map[DT_FP + 1];

	if (calls != 0 || (used & 1u << DT_FP))
		return false;
	for (uint32_t i = 0; i < f->ninsns; i++)
		written |= insn_writes(&f->insns[i]);
	for (int r = 0; r <= DT_FP; r++)
		map[r] = r;
	for (int r = DT_R6; r <= DT_R9; r++)
		if ((used & 1u << r) && (map[r] = caller_saved_free(&used)) < 0)
			return false;
	*spare = written & 1u << DT_R1 ? caller_saved_free(&used) : DT_R1;
	if (*spare < 0)
		return false;
	for (uint32_t i = 0; i < f->ninsns; i++) {
		struct bpf_insn *in = &f->insns[i];

		in->dst_reg = map[in->dst_reg];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
			i++;
		else
			in->src_reg = map[in->src_reg];
	}
	return true;
}

/* What each exit of the function f does when f runs inline, in
 * truth[]: -1, jump to the test of its return; or, when the exit returns
 * a known truth (dt_opt_exit_truths()), without the test: end the firing
 * where it is (0) or jump to the full path (1).  The verifier refuses code
 * it cannot reach, so exits skip the test only while some exit still
 * needs it, or an exit of truth 1 reaches the full path.  Returns whether
 * the test stays; truth is NULL when out of memory, and then every exit
 * tests. */
static bool exit_paths(const dt_as_t *f, int8_t *truth)
{
	uint32_t n[3] = { 0, 0, 0 };	/* exits returning -1, 0, 1 */

	if (truth == NULL)
		return true;
	dt_opt_exit_truths(f, truth);
	for (uint32_t i = 0; i < f->ninsns; i++)
		if (f->insns[i].code == (BPF_JMP | BPF_EXIT))
			n[truth[i] + 1]++;
	if (n[0] > 0)
		return true;	/* the test stays, for the exits not known */
	if (n[2] > 0)
		return false;	/* an exit reaches the full path */
	memset(truth, -1, f->ninsns);	/* none would: every exit tests */
	return true;
}

/* The function f run inline at the program's entry, the context kept in
 * spare meanwhile: its exits jump to the test of its return, which ends
 * the firing when no predicate holds; or, when the return is known there
 * (exit_paths()), end the firing or jump past the test. */
void dt_opt_inline_at_entry(dt_as_t *as, const dt_as_t *f, int spare)
{
	int8_t *truth = malloc(f->ninsns);
	bool test = exit_paths(f, truth);

	if (spare != DT_R1 && spare != function_ctx_reg(f))
		dt_as_emit(as, DT_MOV64_REG(spare, DT_R1));
	uint32_t base = dt_as_append(as, f), join = as->ninsns;
	uint32_t full = test ? join + 2 : join;	/* past the test */
	for (uint32_t i = base; i < join && as->err == 0; i++) {
		struct bpf_insn *in = &as->insns[i];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
			i++;
		else if (in->code == (BPF_JMP | BPF_EXIT)) {
			/* An exit known to return 0 ends the firing as it
			 * stands; the others jump. */
			int8_t t = truth != NULL ? truth[i - base] : -1;
			if (t != 0)
				*in = DT_INSN(BPF_JMP | BPF_JA, 0, 0,
					      (int16_t)((t < 0 ? join : full) -
							i - 1), 0);
		}
	}
	free(truth);
	if (test) {
		dt_as_emit(as, DT_INSN(BPF_JMP | BPF_JNE | BPF_K, DT_R0, 0, 1,
				       0));
		dt_as_emit(as, DT_EXIT());
	}
	if (spare != DT_R1)
		dt_as_emit(as, DT_MOV64_REG(DT_R1, spare));
}
