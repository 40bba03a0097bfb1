/* SPDX-License-Identifier: MIT */
/*
 * pid_insn.c: x86-64 instruction decoding for the pid provider, with Zydis.
 *
 * Offsets of offset probes are instruction boundaries found by decoding a
 * function linearly from its first byte: a probe is never placed inside an
 * instruction.  Decoding stops at the first byte sequence Zydis cannot
 * decode (data in the text, or the end of a function whose size is wrong);
 * no boundary is offered past it.
 *
 * Unsafe sites.  Uprobes single-step the probed instruction out of line;
 * the 6.18 kernel of the development machines accepts a uprobe on VEX- and
 * EVEX-encoded instructions (AVX, AVX-512) and then executes some of them
 * wrongly, corrupting the traced program.  Every VEX, EVEX, XOP and MVEX
 * instruction is refused.  So are the instructions the kernel refuses to
 * probe (lock-prefixed ones, traps, hlt), with a message of our own.
 *
 * Functions that read their own return address (setjmp, getcontext, dlsym,
 * the unwinder's entries: see "functions that read their return address"
 * below) cannot carry a return probe: found by decoding their prologue.
 */
#include <errno.h>
#include <stdlib.h>

#include "pid_impl.h"

void pid_insn_init(pid_session_t *ps)
{
	ZydisDecoderInit(&ps->decoder, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
}

/* The bytes of [addr, addr + size) of f, malloc'ed; NULL with errno. */
static uint8_t *read_code(const dtrace_elf_t *f, uint64_t addr, uint64_t size)
{
	uint64_t off;
	uint8_t *buf;
	ssize_t n;

	if (size == 0 || size > (64u << 20)) {
		errno = EINVAL;
		return NULL;
	}
	if (pid_host->elf->vaddr_to_offset(f, addr, &off) != 0) {
		errno = ENOENT;
		return NULL;
	}
	if ((buf = malloc(size)) == NULL)
		return NULL;
	n = pid_host->elf->read(f, off, buf, size);
	if (n != (ssize_t)size) {
		free(buf);
		errno = n < 0 ? (int)-n : EIO;
		return NULL;
	}
	return buf;
}

int pid_insn_each(pid_session_t *ps, const dtrace_elf_t *f, uint64_t addr,
		  uint64_t size, int (*fn)(uint64_t off, void *arg), void *arg)
{
	ZydisDecodedInstruction insn;
	uint8_t *code = read_code(f, addr, size);
	uint64_t off = 0;

	if (code == NULL)
		return -errno;
	while (off < size) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&ps->decoder,
				NULL, code + off, size - off, &insn)))
			break;
		if (fn(off, arg) != 0)
			break;
		off += insn.length;
	}
	free(code);
	return 0;
}

struct boundary_arg {
	uint64_t want;
	bool found;
};

static int check_boundary(uint64_t off, void *arg)
{
	struct boundary_arg *ba = arg;

	if (off == ba->want)
		ba->found = true;
	return off >= ba->want;
}

bool pid_insn_is_boundary(pid_session_t *ps, const dtrace_elf_t *f,
			  uint64_t addr, uint64_t size, uint64_t off)
{
	struct boundary_arg ba = { .want = off };

	if (off == 0)
		return true;
	if (off >= size)
		return false;
	pid_insn_each(ps, f, addr, size, check_boundary, &ba);
	return ba.found;
}

const char *pid_insn_unsafe(pid_session_t *ps, const dtrace_elf_t *f,
			    uint64_t addr, const char **mnem, bool *vex,
			    bool *nop5)
{
	ZydisDecodedInstruction insn;
	uint8_t code[ZYDIS_MAX_INSTRUCTION_LENGTH];
	uint64_t off;
	ssize_t n;

	*mnem = NULL;
	*vex = false;
	*nop5 = false;
	if (pid_host->elf->vaddr_to_offset(f, addr, &off) != 0)
		return "not in the file's loaded segments";
	n = pid_host->elf->read(f, off, code, sizeof(code));
	if (n <= 0)
		return "its bytes cannot be read";
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&ps->decoder, NULL,
			code, (size_t)n, &insn)))
		return "not a valid instruction";
	*mnem = ZydisMnemonicGetString(insn.mnemonic);
	*nop5 = insn.mnemonic == ZYDIS_MNEMONIC_NOP && insn.length == 5;
	*vex = true;
	switch (insn.encoding) {
	case ZYDIS_INSTRUCTION_ENCODING_VEX:
		return "VEX-encoded";
	case ZYDIS_INSTRUCTION_ENCODING_EVEX:
		return "EVEX-encoded";
	case ZYDIS_INSTRUCTION_ENCODING_XOP:
		return "XOP-encoded";
	case ZYDIS_INSTRUCTION_ENCODING_MVEX:
		return "MVEX-encoded";
	default:
		break;
	}
	*vex = false;
	/* the kernel refuses these (ENOTSUPP); say why before it does */
	if (insn.attributes & ZYDIS_ATTRIB_HAS_LOCK)
		return "lock-prefixed";
	switch (insn.mnemonic) {
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_HLT:
		return "a trap or halt instruction";
	default:
		return NULL;
	}
}

/* Whether an operand of insn (at link-time address ip) is the address
 * target: a relative branch's destination or a %rip-relative address. */
static bool operand_is(const ZydisDecodedInstruction *insn,
		       const ZydisDecodedOperand *ops, uint64_t ip,
		       uint64_t target)
{
	for (int i = 0; i < insn->operand_count_visible; i++) {
		ZyanU64 abs;

		if (!(ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		      ops[i].imm.is_relative) &&
		    !(ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		      ops[i].mem.base == ZYDIS_REGISTER_RIP))
			continue;
		if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(insn, &ops[i], ip,
							  &abs)) &&
		    abs == target)
			return true;
	}
	return false;
}

bool pid_insn_refers_to(pid_session_t *ps, const dtrace_elf_t *f,
			uint64_t addr, uint64_t size, uint64_t target)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction insn;
	uint8_t *code = read_code(f, addr, size);
	bool found = false;
	uint64_t off = 0;

	if (code == NULL)
		return true;
	while (off < size && !found) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&ps->decoder,
				code + off, size - off, &insn, ops))) {
			found = true;	/* not code: cannot tell */
			break;
		}
		found = operand_is(&insn, ops, addr + off, target);
		off += insn.length;
	}
	free(code);
	return found;
}

/* ---- functions that read their return address --------------------------- */

/*
 * A return probe is a uretprobe: at the function's entry the kernel
 * replaces the return address at [sp] with its trampoline's, and pushes a
 * pending return (the original address, sp) on the thread's list; the
 * trampoline pops the pending returns down to its sp.  A function that
 * reads the word at [sp] gets the trampoline's address instead of its
 * caller's:
 *   - _setjmp, __sigsetjmp, getcontext, swapcontext save it to return to
 *     it again later; by then their pending return is gone (or another's
 *     is on top), and the kernel either kills the thread with SIGILL or
 *     resumes it at another function's caller (a setjmp/longjmp loop, bash
 *     after an error, PostgreSQL's PG_TRY, pthread_exit's unwinding to
 *     start_thread);
 *   - dlsym, dlopen and the unwinder's entries (_Unwind_RaiseException...)
 *     take it for their caller's address, to find the caller's object or
 *     to unwind from it, and look in the trampoline's page instead.
 * So a return probe is refused on a function that reads its return
 * address, found by decoding it: from the entry, the scan follows how far
 * rsp moved (push, pop, sub and add of constants) and where a frame pointer
 * was set (mov rbp, rsp), and looks for an explicit memory read of the
 * return address slot ([rsp + depth] or [rbp + depth at the mov]).  It
 * follows a jump taken with nothing pushed (a tail call: _setjmp is
 * "xor esi, esi; jmp __sigsetjmp"), and gives up at a return, another
 * jump, an rsp it cannot follow or after RA_SCAN_INSNS instructions: a
 * reader is found at its prologue.  Checking the code and not names also
 * refuses every alias of such a function.
 *
 * What the kernel follows needs no refusal: a longjmp out of functions
 * with pending returns (the trampoline drops those whose frames are below
 * the sp it returns to), and vfork, which pops its return address to a
 * register and pushes it back (an implicit operand, not counted): the
 * kernel copies the parent's pending returns to the vfork child.
 */
#define RA_SCAN_INSNS	40	/* instructions, tail calls included */
#define RA_WINDOW	256	/* bytes decoded at a time */
#define RA_MAX_JUMPS	4	/* tail calls followed */

typedef struct ra_scan {
	int64_t depth;		/* bytes pushed since the entry */
	int64_t fp_depth;	/* depth when rbp was set to rsp */
	bool fp_set;		/* rbp points at that frame */
	int budget;		/* instructions left to look at */
	uint64_t jump_to;	/* RA_JUMP: the tail call's target */
} ra_scan_t;

typedef enum ra_step {
	RA_GO_ON,		/* next instruction */
	RA_READ,		/* the return address was read */
	RA_JUMP,		/* a tail call to scan->jump_to */
	RA_STOP,		/* nothing more known: not a reader */
} ra_step_t;

static bool is_ra_slot(const ZydisDecodedOperand *op, const ra_scan_t *s)
{
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    op->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
	    op->mem.index != ZYDIS_REGISTER_NONE ||
	    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) ||
	    op->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT)
		return false;
	if (op->mem.base == ZYDIS_REGISTER_RSP)
		return op->mem.disp.value == s->depth;
	return op->mem.base == ZYDIS_REGISTER_RBP && s->fp_set &&
	       op->mem.disp.value == s->fp_depth;
}

/* Whether an explicit operand is written register reg. */
static bool writes_reg(const ZydisDecodedInstruction *insn,
		       const ZydisDecodedOperand *ops, ZydisRegister reg)
{
	for (int i = 0; i < insn->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ops[i].reg.value == reg &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			return true;
	return false;
}

/* sub/add rsp, imm: the change of depth in *delta. */
static bool rsp_arith(const ZydisDecodedInstruction *insn,
		      const ZydisDecodedOperand *ops, int64_t *delta)
{
	if ((insn->mnemonic != ZYDIS_MNEMONIC_SUB &&
	     insn->mnemonic != ZYDIS_MNEMONIC_ADD) ||
	    ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    ops[0].reg.value != ZYDIS_REGISTER_RSP ||
	    ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return false;
	*delta = insn->mnemonic == ZYDIS_MNEMONIC_SUB ? ops[1].imm.value.s :
						       -ops[1].imm.value.s;
	return true;
}

/* How the stack moves at one instruction (at link-time address ip). */
static ra_step_t ra_follow(const ZydisDecodedInstruction *insn,
			   const ZydisDecodedOperand *ops, uint64_t ip,
			   ra_scan_t *s)
{
	int64_t delta;

	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_PUSHFQ:
		s->depth += insn->operand_width / 8;
		return RA_GO_ON;
	case ZYDIS_MNEMONIC_POP:
		s->depth -= insn->operand_width / 8;
		if (writes_reg(insn, ops, ZYDIS_REGISTER_RBP))
			s->fp_set = false;
		return s->depth < 0 ? RA_STOP : RA_GO_ON;
	case ZYDIS_MNEMONIC_CALL:
		return RA_GO_ON;
	case ZYDIS_MNEMONIC_JMP:
		if (s->depth != 0 || ops[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
		    !ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(insn, &ops[0], ip,
							   &s->jump_to)))
			return RA_STOP;
		return RA_JUMP;
	case ZYDIS_MNEMONIC_MOV:
		if (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ops[0].reg.value == ZYDIS_REGISTER_RBP &&
		    ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ops[1].reg.value == ZYDIS_REGISTER_RSP) {
			s->fp_depth = s->depth;
			s->fp_set = true;
			return RA_GO_ON;
		}
		break;
	default:
		break;
	}
	if (insn->meta.category == ZYDIS_CATEGORY_RET)
		return RA_STOP;
	if (rsp_arith(insn, ops, &delta)) {
		s->depth += delta;
		return RA_GO_ON;
	}
	if (writes_reg(insn, ops, ZYDIS_REGISTER_RSP) ||
	    insn->mnemonic == ZYDIS_MNEMONIC_LEAVE ||
	    insn->mnemonic == ZYDIS_MNEMONIC_ENTER)
		return RA_STOP;
	if (writes_reg(insn, ops, ZYDIS_REGISTER_RBP))
		s->fp_set = false;
	return RA_GO_ON;
}

/* Scan the code at [addr, addr + n) until a step other than RA_GO_ON. */
static ra_step_t ra_scan_code(pid_session_t *ps, const uint8_t *code,
			      size_t n, uint64_t addr, ra_scan_t *s)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction insn;
	size_t off = 0;

	while (off < n && s->budget-- > 0) {
		ra_step_t step;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&ps->decoder,
				code + off, n - off, &insn, ops)))
			return RA_STOP;
		for (int i = 0; i < insn.operand_count_visible; i++)
			if (is_ra_slot(&ops[i], s))
				return RA_READ;
		step = ra_follow(&insn, ops, addr + off, s);
		if (step != RA_GO_ON)
			return step;
		off += insn.length;
	}
	return RA_STOP;
}

bool pid_insn_reads_return_address(pid_session_t *ps, const dtrace_elf_t *f,
				   uint64_t addr, uint64_t size)
{
	ra_scan_t s = { .budget = RA_SCAN_INSNS };
	uint8_t code[RA_WINDOW];

	for (int jumps = 0; jumps <= RA_MAX_JUMPS; jumps++) {
		uint64_t off;
		ssize_t n;
		ra_step_t step;

		if (size == 0 || size > sizeof(code))
			size = sizeof(code);
		if (pid_host->elf->vaddr_to_offset(f, addr, &off) != 0 ||
		    (n = pid_host->elf->read(f, off, code, size)) <= 0)
			return false;
		step = ra_scan_code(ps, code, (size_t)n, addr, &s);
		if (step != RA_JUMP)
			return step == RA_READ;
		addr = s.jump_to;
		size = 0;
	}
	return false;
}
