/* SPDX-License-Identifier: MIT */
/*
 * pid_enable.c: placing the pid provider's probes, and their trampolines.
 *
 * enable() turns a probe into an underlying uprobe on (file, file offset)
 * filtered on the probe's process, and an overlay that ties the probe to it
 * for that process.  Sites the kernel would mishandle (see pid_insn.c), that
 * are not instruction boundaries, or that the kernel refuses, are skipped,
 * not fatal; the refusals are summed up in one warning when tracing starts
 * (the one refusal in full when there was only one).
 *
 * A return probe is a uretprobe: at the function's entry the kernel
 * replaces the word at [sp], the return address, with its trampoline's.  A
 * function that is not entered by a call has no return address there, and
 * the replaced word is the program's own data (at _start, argc): such
 * return probes are refused, and named in one warning.  So are those of
 * functions that read that word, which is the trampoline's address once
 * replaced: setjmp and getcontext would return to it again after their
 * pending return is gone, killing the thread or resuming another caller;
 * dlsym and the unwinder would take it for their caller
 * (pid_insn_reads_return_address, pid_insn.c).
 *
 * Trampolines (a uprobe's pt_regs in the context register, read through
 * provider.h's DTRACE_CTX_* offsets):
 *   kind 0, entry and offset probes:
 *	arg0..arg5 = rdi, rsi, rdx, rcx, r8, r9; arg6..arg9 from the user
 *	stack at sp+8 .. sp+32 (0 when unreadable); regs_ip = ip.  At an
 *	offset probe the arguments are whatever those registers and stack
 *	slots hold there (DTrace leaves them undefined: use uregs[]).
 *   kind 2, entry probes placed past the function's endbr64 (pid_place.c):
 *	kind 0's, with regs_ip = ip - 4, the function's address.
 *   kind 1, return probes:
 *	arg0 = 0, arg1 = rax, arg2..arg9 = 0; regs_ip = ip, which is the
 *	return address in the caller.  DTrace gives in arg0 the offset of
 *	the returning instruction in the function; a uretprobe fires after
 *	the return, in the caller, and cannot know which ret ran: arg0 is
 *	always 0 here.
 *
 * Arguments are untyped in DTrace's pid provider (argN are raw 64-bit
 * values); for args[] this provider declares uint64_t: ten at entry, two at
 * return (the offset and the return value), none at an offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pid_impl.h"

#define ARGV_OFF(i) \
	((int16_t)(offsetof(dtrace_mstate_t, argv) + (i) * sizeof(uint64_t)))
#define IP_OFF	((int16_t)offsetof(dtrace_mstate_t, regs_ip))

/* ---- skipped sites ------------------------------------------------------ */

static void full_name(const dtrace_probe_t *prp, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s:%s:%s",
		 pid_host->probes->name(prp, DTRACE_FIELD_PRV),
		 pid_host->probes->name(prp, DTRACE_FIELD_MOD),
		 pid_host->probes->name(prp, DTRACE_FIELD_FUN),
		 pid_host->probes->name(prp, DTRACE_FIELD_PRB));
}

/* Remember a refused probe; the first refusal is kept in full. */
static void skip(pid_session_t *ps, const dtrace_probe_t *prp, bool vex,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void skip(pid_session_t *ps, const dtrace_probe_t *prp, bool vex,
		 const char *fmt, ...)
{
	char name[512], why[256];
	va_list ap;

	ps->nskipped++;
	ps->nskipped_vex += vex;
	ps->skip_reported = false;
	if (ps->nskipped > 1)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	full_name(prp, name, sizeof(name));
	snprintf(ps->first_skipped, sizeof(ps->first_skipped),
		 "probe %s skipped: %s", name, why);
}

/*
 * Functions that no call enters, so that [sp] at their first instruction is
 * not a return address: the file's entry point (_start: [sp] is argc), and
 * the loader's and libc's trampolines that are reached by a jump or a
 * return (the lazy binding resolver finds the link map and relocation
 * index on top of the stack; __restore_rt, the signal frame;
 * __start_context, makecontext's successor context).
 */
static const char *const uncalled_names[] = {
	"_start", "_dl_start_user", "__restore_rt", "__start_context",
	"_dl_runtime_resolve_fxsave", "_dl_runtime_resolve_xsave",
	"_dl_runtime_resolve_xsavec", "_dl_runtime_profile_avx",
	"_dl_runtime_profile_avx512", "_dl_runtime_profile_sse",
};

static bool never_called(const dtrace_probe_t *prp, const pid_probe_t *pp)
{
	const char *fun = pid_host->probes->name(prp, DTRACE_FIELD_FUN);
	uint64_t end = pp->func_addr + (pp->func_size ? pp->func_size : 1);
	uint64_t entry = pid_host->elf->entry(pp->file);

	if (entry >= pp->func_addr && entry < end)
		return true;
	for (size_t i = 0; i < sizeof(uncalled_names) / sizeof(*uncalled_names);
	     i++)
		if (strcmp(fun, uncalled_names[i]) == 0)
			return true;
	return false;
}

/* Remember a refused return probe in list r. */
static void refuse_return(pid_session_t *ps, pid_refused_t *r,
			  const dtrace_probe_t *prp)
{
	size_t len = strlen(r->names);
	char name[512];

	full_name(prp, name, sizeof(name));
	r->n++;
	ps->skip_reported = false;
	if (len + strlen(name) + 8 < sizeof(r->names))
		snprintf(r->names + len, sizeof(r->names) - len, "%s%s",
			 len ? ", " : "", name);
	else if (len > 0 && strcmp(r->names + len - 3, "...") != 0)
		snprintf(r->names + len, sizeof(r->names) - len, ", ...");
}

/* "dtrace: N return probes not placed: WHY: NAMES", WHY in the singular
 * (one) or the plural (many); the list is emptied. */
static void report_refused(dtrace_provider_t *pv, pid_refused_t *r,
			   const char *one, const char *many)
{
	if (r->n == 0)
		return;
	pid_host->report->warn(pv, "%d return %s not placed: %s: %s", r->n,
			       r->n == 1 ? "probe" : "probes",
			       r->n == 1 ? one : many, r->names);
	r->n = 0;
	r->names[0] = '\0';
}

void pid_report_skipped(dtrace_provider_t *pv, pid_session_t *ps)
{
	if (ps->skip_reported)
		return;
	report_refused(pv, &ps->uncalled, "its function is never called, so "
		       "its stack holds no return address to replace",
		       "their functions are never called, so their stacks "
		       "hold no return address to replace");
	report_refused(pv, &ps->ra_readers, "its function reads its own "
		       "return address (to return there again, as setjmp and "
		       "getcontext do, or to know its caller), which a return "
		       "probe replaces", "their functions read their own "
		       "return address (to return there again, as setjmp and "
		       "getcontext do, or to know their callers), which a "
		       "return probe replaces");
	if (ps->nskipped == 0)
		return;
	ps->skip_reported = true;
	if (ps->nskipped == 1)
		pid_host->report->warn(pv, "%s", ps->first_skipped);
	else if (ps->nskipped_vex == ps->nskipped)
		pid_host->report->warn(pv,
			"%d probes skipped: their instructions are "
			"VEX/EVEX/XOP-encoded, which uprobes execute "
			"wrongly (first: %s)",
			ps->nskipped, ps->first_skipped);
	else
		pid_host->report->warn(pv,
			"%d probes skipped, %d of them on "
			"VEX/EVEX/XOP-encoded instructions, which "
			"uprobes execute wrongly (first: %s)",
			ps->nskipped, ps->nskipped_vex,
			ps->first_skipped);
	ps->nskipped = ps->nskipped_vex = 0;
}

/* ---- enable ------------------------------------------------------------- */

/* A probe on a 5-byte nop where the kernel's call would crash a forked
 * child: refused, or with -x pid.nop5=place placed after one warning. */
static bool nop5_placed(dtrace_provider_t *pv, pid_session_t *ps,
			const dtrace_probe_t *prp)
{
	if (!ps->nop5_place) {
		skip(ps, prp, false, "its instruction is a 5-byte nop, which "
		     "this kernel turns into a call that a child the process "
		     "forks would crash on (-x pid.nop5=place places it all "
		     "the same)");
		return false;
	}
	if (!ps->nop5_warned)
		pid_host->report->warn(pv,
			"pid: -x pid.nop5=place: this kernel's "
			"optimized uprobes crash a child that a traced "
			"process forks: trace only programs that do "
			"not fork");
	ps->nop5_warned = true;
	return true;
}

/* Whether the site of pp may carry a uprobe; if not, record why.  A
 * 5-byte nop (the entry of a function built with -pg -mnop-mcount, or
 * -fpatchable-function-entry with Clang) is the kernel's to optimize into
 * a call: refused where a child that the process forks would crash on it
 * (dt_nop5.c). */
static bool site_ok(dtrace_provider_t *pv, pid_session_t *ps,
		    const dtrace_probe_t *prp, const pid_probe_t *pp,
		    uint64_t addr)
{
	const char *why, *mnem;
	bool vex, nop5;

	if (pp->site == PID_SITE_OFFSET &&
	    !pid_insn_is_boundary(ps, pp->file, pp->func_addr, pp->func_size,
				  pp->off)) {
		skip(ps, prp, false, "offset 0x%" PRIx64 " is not an "
		     "instruction boundary", pp->off);
		return false;
	}
	why = pid_insn_unsafe(ps, pp->file, addr, &mnem, &vex, &nop5);
	if (why == NULL && nop5 &&
	    pid_kernel_nop5(pv, ps) == DTRACE_NOP5_FORK_UNSAFE)
		return nop5_placed(pv, ps, prp);
	if (why == NULL)
		return true;
	if (vex)
		skip(ps, prp, true, "its instruction (%s) is %s, which uprobes "
		     "execute wrongly", mnem, why);
	else if (mnem != NULL)
		skip(ps, prp, false, "its instruction (%s) is %s, which uprobes "
		     "cannot probe", mnem, why);
	else
		skip(ps, prp, false, "its instruction is %s", why);
	return false;
}

/* The entry's placement in -x debug's words, where there was a choice. */
static void entry_debug(dtrace_provider_t *pv, const dtrace_probe_t *prp,
			const char *why)
{
	char name[512];

	full_name(prp, name, sizeof(name));
	pid_host->report->debug(pv, "probe %s: placed %s", name,
				why);
}

int pid_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	pid_session_t *ps = data;
	const pid_probe_t *pp = pid_host->probes->priv(prp);
	uint64_t addr = pp->func_addr, off;
	dtrace_uprobe_t up = { 0 };
	const char *why = NULL;
	uint8_t shift = 0;
	int64_t cookie;
	int err;

	if (pp->site == PID_SITE_OFFSET && pp->off != 0)
		addr += pp->off;
	else
		addr += shift = pid_entry_shift(pv, ps, pp, &why);
	if (pp->site == PID_SITE_RETURN && never_called(prp, pp)) {
		refuse_return(ps, &ps->uncalled, prp);
		return 0;
	}
	if (pp->site == PID_SITE_RETURN &&
	    pid_insn_reads_return_address(ps, pp->file, pp->func_addr,
					  pp->func_size)) {
		refuse_return(ps, &ps->ra_readers, prp);
		return 0;
	}
	if (!site_ok(pv, ps, prp, pp, addr))
		return 0;
	if (pid_host->elf->vaddr_to_offset(pp->file, addr, &off) != 0) {
		skip(ps, prp, false, "its address is not in %s", pp->path);
		return 0;
	}
	if (why != NULL)
		entry_debug(pv, prp, why);
	up.path = pp->path;
	up.pid = pp->pid;
	if (pp->site == PID_SITE_RETURN) {
		/* a uretprobe is planted at the function's entry (addr) */
		up.kind = PID_KIND_RETURN;
		up.flags = DTRACE_UPROBE_RETURN;
	} else {
		up.kind = shift ? PID_KIND_ENTRY_SHIFTED : PID_KIND_ENTRY;
	}
	up.offset = off;
	cookie = pid_host->sites->uprobe(pv, &up);
	if (cookie < 0) {
		skip(ps, prp, false, "it could not be placed: %s",
		     strerror((int)-cookie));
		return 0;
	}
	if ((err = pid_host->sites->overlay(pv, cookie, pp->pid, prp)) < 0)
		skip(ps, prp, false, "%s", strerror(-err));
	return 0;
}

/* ---- trampolines -------------------------------------------------------- */

/* mstate->argv[i] = *(u64 *)(ctx + regoff) */
static void copy_reg(dtrace_emitter_t *em, int i, int regoff)
{
	pid_host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R0, DTRACE_REG_CTX, regoff));
	pid_host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV_OFF(i),
			    DT_R0));
}

/* mstate->argv[first..DTRACE_ARGV_LOW-1] = the words at user address
 * R8 + sp_off, in one read (a helper call costs more than the copy), or
 * all 0 if the stack cannot be read. */
static void copy_stack_args(dtrace_emitter_t *em, int first, int sp_off)
{
	int done = pid_host->bpf->label_new(em);
	int n = DTRACE_ARGV_LOW - first;

	pid_host->bpf->emit(em, DT_MOV64_REG(DT_R1, DTRACE_REG_MSTATE));
	pid_host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R1, ARGV_OFF(first)));
	pid_host->bpf->emit(em, DT_MOV64_IMM(DT_R2, 8 * n));
	pid_host->bpf->emit(em, DT_MOV64_REG(DT_R3, DT_R8));
	pid_host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R3, sp_off));
	pid_host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_probe_read_user));
	pid_host->bpf->jump(em, BPF_JEQ, DT_R0, 0, done);
	for (int i = first; i < DTRACE_ARGV_LOW; i++)
		pid_host->bpf->emit(em, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE,
				    ARGV_OFF(i), 0));
	pid_host->bpf->label_place(em, done);
}

/* The entry trampoline, filling the arguments of read (bit i: argv[i]). */
static void entry_trampoline(dtrace_emitter_t *em, uint64_t read)
{
	/* The arguments past the sixth are on the stack: read only when a
	 * clause uses them (the read is a third of a firing's cost). */
	const uint64_t stack_args = ((1ull << DTRACE_ARGV_LOW) - 1) &
				    ~((1ull << DTRACE_CTX_NARGS) - 1);
	static const int regs[DTRACE_CTX_NARGS] = {
		DTRACE_CTX_ARG(0), DTRACE_CTX_ARG(1), DTRACE_CTX_ARG(2),
		DTRACE_CTX_ARG(3), DTRACE_CTX_ARG(4), DTRACE_CTX_ARG(5),
	};

	/* the engine cleared the others */
	for (int i = 0; i < DTRACE_CTX_NARGS; i++)
		if (read & (1ull << i))
			copy_reg(em, i, regs[i]);
	/* at the entry, sp points at the return address; the seventh
	 * argument is just above it */
	if (!(read & stack_args))
		return;
	pid_host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R8, DTRACE_REG_CTX,
					DTRACE_CTX_SP));
	copy_stack_args(em, DTRACE_CTX_NARGS, 8);
}

static void return_trampoline(dtrace_emitter_t *em)
{
	int i;

	/* arg0: the offset of the ret, unknown to a uretprobe */
	pid_host->bpf->emit(em, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE,
			    ARGV_OFF(0), 0));
	copy_reg(em, 1, DTRACE_CTX_RET);
	for (i = 2; i < DTRACE_ARGV_LOW; i++)
		pid_host->bpf->emit(em, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE,
				    ARGV_OFF(i), 0));
}

int pid_trampoline(dtrace_provider_t *pv, void *data, dtrace_emitter_t *em,
		   const dtrace_trampoline_t *tr)
{
	switch (tr->kind) {
	case PID_KIND_ENTRY:
	case PID_KIND_ENTRY_SHIFTED:
		entry_trampoline(em, tr->args_read);
		break;
	case PID_KIND_RETURN:
		return_trampoline(em);
		break;
	default:
		pid_host->report->error(pv, "pid provider: no trampoline of "
					"kind %d", tr->kind);
		return -EINVAL;
	}
	pid_host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R0, DTRACE_REG_CTX,
					DTRACE_CTX_IP));
	/* The function's address, which uregs[R_PC] and ustack() read,
	 * where the probe is past its endbr64 (pid_place.c). */
	if (tr->kind == PID_KIND_ENTRY_SHIFTED)
		pid_host->bpf->emit(em, DT_ALU64_IMM(BPF_SUB, DT_R0,
						     PID_ENDBR64_LEN));
	pid_host->bpf->emit(em,
			    DT_STORE(BPF_DW, DTRACE_REG_MSTATE, IP_OFF, DT_R0));
	return 0;
}

/* ---- arguments ---------------------------------------------------------- */

int pid_probe_args(dtrace_provider_t *pv, void *data, const dtrace_probe_t *prp,
		   dtrace_argdesc_t *args)
{
	const pid_probe_t *pp = pid_host->probes->priv(prp);
	int i, n;

	switch (pp->site) {
	case PID_SITE_ENTRY:
		n = DTRACE_ARGV_LOW;
		break;
	case PID_SITE_RETURN:
		n = 2;
		break;
	default:
		n = 0;
		break;
	}
	for (i = 0; i < n; i++)
		args[i] = (dtrace_argdesc_t){ .native = "uint64_t",
					      .mapping = i };
	return n;
}
