/* SPDX-License-Identifier: MIT */
/*
 * pid_place.c: where a function's entry uprobe goes.
 *
 * A function built with -fcf-protection (the default of Ubuntu's and
 * Fedora's gcc) begins with endbr64 (f3 0f 1e fa), which the kernel's
 * uprobe single-steps out of line: four to ten times the cost of the
 * instruction after it when that is one the kernel emulates (push %rbp),
 * and more when it is, with -pg -mfentry -mnop-mcount, a 5-byte nop the
 * kernel can optimize into a call (bench/firing.sh, HACKING.md).
 * endbr64 changes no register and no memory: at the function's address
 * + 4 the arguments, the stack, every register but the pc, and so
 * ustack() and ucaller, are the entry's.  So the uprobe of a function's
 * entry goes there: that of its entry probe, of its offset-0 probe (the
 * entry too), and the uretprobe of its return probe (the return address
 * is still at [sp]; sharing the entry's address, the two are served by
 * one hit).  The entry's trampoline (PID_KIND_ENTRY_SHIFTED) takes the 4
 * bytes off mstate.regs_ip, which uregs[R_PC] and ustack()'s first frame
 * read: a clause sees the function's address, as the usdt provider's
 * probes on a site's 5-byte nop see the note's (USDT_SPEC_SHIFTED).  The
 * offset probe at 4 stays what it was, with a pc 4 bytes in.
 *
 * The instruction at +4 must be reached only from the entry.  Compilers
 * make no direct branch or call to it from another function (Linux's
 * objtool makes the kernel's direct calls skip endbr64; no user-space
 * toolchain does), and an indirect one lands on the endbr64 by design.
 * Inside the function a loop may begin there (a tail call turned into a
 * loop): a function whose code branches to +4 or takes its address keeps
 * the classic placement, as does one where another function's symbol
 * begins at +4 (called directly), one whose size is unknown (its code
 * cannot be looked at), and one whose instruction at +4 cannot carry a
 * uprobe.  A 5-byte nop at +4 is placed where a 5-byte nop entry would be
 * (pid_enable.c): not where the kernel's call crashes children that the
 * process forks (dt_nop5.c) unless -x pid.nop5=place says so; the entry
 * then stays on the endbr64, which it did before.
 *
 * -x pid.entry=classic keeps every entry on the function's first
 * instruction (for comparison, and as a way out); -x debug says where each
 * entry of a function that begins with endbr64 went, and why.
 */
#include <string.h>

#include "pid_impl.h"

static const unsigned char endbr64[PID_ENDBR64_LEN] = {
	0xf3, 0x0f, 0x1e, 0xfa
};

int pid_kernel_nop5(dtrace_provider_t *pv, pid_session_t *ps)
{
	if (!ps->nop5_known) {
		ps->nop5 = pid_host->sites->uprobe_nop5(pv);
		ps->nop5_known = true;
	}
	return ps->nop5;
}

static bool begins_with_endbr64(const pid_probe_t *pp)
{
	unsigned char code[PID_ENDBR64_LEN];
	uint64_t off;

	return pid_host->elf->vaddr_to_offset(pp->file, pp->func_addr,
					      &off) == 0 &&
	       pid_host->elf->read(pp->file, off, code, sizeof(code)) ==
	       (ssize_t)sizeof(code) &&
	       memcmp(code, endbr64, sizeof(code)) == 0;
}

/* Whether a function symbol of the file begins at addr. */
static bool symbol_at(dtrace_provider_t *pv, const dtrace_elf_t *f,
		      uint64_t addr)
{
	const dtrace_sym_t *syms;
	size_t n;
	char msg[256];

	return pid_host->elf->symbols(pv, f, &syms, &n, msg, sizeof(msg)) == 0 &&
	       pid_names_at(syms, n, addr) != NULL;
}

/* Where the instruction after the endbr64 is a 5-byte nop: the words for
 * -x debug, or NULL when it is refused there (as a 5-byte nop entry is). */
static const char *after_is_nop5(dtrace_provider_t *pv, pid_session_t *ps)
{
	switch (pid_kernel_nop5(pv, ps)) {
	case DTRACE_NOP5_OPTIMIZED:
		return "past the function's endbr64, on a 5-byte nop "
		       "(optimized)";
	case DTRACE_NOP5_FORK_UNSAFE:
		return ps->nop5_place ?
		       "past the function's endbr64, on a 5-byte nop "
		       "(pid.nop5=place; optimized, but a forked child would "
		       "crash)" : NULL;
	default:
		return "past the function's endbr64, on a 5-byte nop (the "
		       "kernel does not optimize it)";
	}
}

#define CLASSIC	"on the function's endbr64 (classic: "

/* The placement of the entry of pp's function, which begins with endbr64:
 * PID_ENDBR64_LEN or 0, and why. */
static uint8_t decide(dtrace_provider_t *pv, pid_session_t *ps,
		      const pid_probe_t *pp, const char **why)
{
	uint64_t next = pp->func_addr + PID_ENDBR64_LEN;
	const char *mnem;
	bool vex, nop5;

	if (ps->entry_classic) {
		*why = "on the function's endbr64 (pid.entry=classic)";
		return 0;
	}
	if (pp->func_size <= PID_ENDBR64_LEN) {
		*why = pp->func_size == 0 ?
		       CLASSIC "the function's size is unknown)" :
		       CLASSIC "nothing follows it)";
		return 0;
	}
	if (pid_insn_unsafe(ps, pp->file, next, &mnem, &vex, &nop5) != NULL) {
		*why = CLASSIC "the instruction after it cannot carry a "
		       "uprobe)";
		return 0;
	}
	if (symbol_at(pv, pp->file, next)) {
		*why = CLASSIC "another function begins after it)";
		return 0;
	}
	if (pid_insn_refers_to(ps, pp->file, pp->func_addr, pp->func_size,
			       next)) {
		*why = CLASSIC "the function branches to the instruction "
		       "after it)";
		return 0;
	}
	if (nop5 && (*why = after_is_nop5(pv, ps)) == NULL) {
		*why = CLASSIC "the instruction after it is a 5-byte nop, "
		       "which this kernel turns into a call that a child the "
		       "process forks would crash on; -x pid.nop5=place "
		       "places it there all the same)";
		return 0;
	}
	if (!nop5)
		*why = "past the function's endbr64";
	return PID_ENDBR64_LEN;
}

uint8_t pid_entry_shift(dtrace_provider_t *pv, pid_session_t *ps,
			const pid_probe_t *pp, const char **why)
{
	if (ps->shift_file != pp->file || ps->shift_func != pp->func_addr) {
		ps->shift_why = NULL;
		ps->shift = begins_with_endbr64(pp) ?
			    decide(pv, ps, pp, &ps->shift_why) : 0;
		ps->shift_file = pp->file;
		ps->shift_func = pp->func_addr;
	}
	*why = ps->shift_why;
	return ps->shift;
}
