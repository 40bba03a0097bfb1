/* SPDX-License-Identifier: MIT */
/*
 * usdt_tramp.c: the run-time argument table and the trampoline.
 *
 * Every probe site has its own argument specifications, but one BPF program
 * serves all sites: the specs are data.  The map "usdt_specs" (hash, key:
 * the u32 attach cookie of the underlying probe, value: usdt_rtspec_t) holds
 * the decoded specs of each site, written by enable().  The trampoline looks
 * the firing cookie up (the key lives in the mstate, so no stack is used)
 * and computes argv[0..nargs-1] in a loop unrolled DTRACE_ARGS_MAX times.
 *
 * Registers are read from pt_regs at an offset taken from the table.  The
 * verifier refuses loads from the context at a variable offset, so the
 * offset chooses among loads at each constant one (emit_ctx_load());
 * memory operands are read with
 * bpf_probe_read_user() of exactly the declared size (reading more could
 * fault at the end of a page).  The value is then sign- or zero-extended by
 * shifting left by 64 - 8 * size and back.
 *
 * Register use: R9 holds the spec table entry, R8 the value being built,
 * R1-R5 and R0 are helper-call scratch.  R6 (ctx) and R7 (mstate) are kept.
 * A cookie with no entry is not a site of this provider: the firing is
 * skipped.  Argument slots past nargs stay 0.
 *
 * A program that serves few sites (USDT_INLINE_SITES) carries their specs as
 * code instead: the engine says which cookies the program serves
 * (the trampoline's cookies (dtrace_trampoline_t)), the trampoline compares the firing cookie with each and
 * runs that site's own straight-line code, which reads only the arguments the
 * clauses may read.  The map lookup (the hash of the cookie, then its bucket
 * and element, two more pages touched) cost about half of a firing's time in
 * BPF.  A program that serves one site for good (dtrace_trampoline_t's
 * sole_cookie: the engine gives sites placed later a program of their own) runs
 * that site's code untested.  Sites placed after the program was built, and
 * programs of many sites, take the lookup.  Beside sites of its own, the lookup
 * is a function at the end of the program (host->bpf->cold, host->bpf->call):
 * its code, some ten kilobytes once compiled, would otherwise stand between the
 * pages a firing runs through.  In the prefilter (the engine's first test of
 * argument-only predicates), an unknown cookie says "read in full" instead
 * (dtrace_trampoline_t's prefilter_pass).
 *
 * At a site where the probe for every process is overlaid (USDT_SPEC_EVERY),
 * the trampoline also looks the firing process's (pid, site address) up in
 * dtprobed's pinned map (usdt_reg.h), whose key is laid out as the mstate's
 * key followed by regs_ip: the key is read in place, its cookie half zeroed
 * for the lookup.  Found: the process registered the site, and its firing
 * is its own probe's (mstate.instance, DTRACE_PROBE_TEMPLATE), even before
 * the plugin heard of the registration.  A site whose probe is on the
 * 5-byte nop past the note's address (USDT_SPEC_SHIFTED, usdt_place.c)
 * first takes that byte off regs_ip, so that the key is the note's address
 * dtprobed recorded.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "usdt_impl.h"
#include "usdt_reg.h"

void usdt_rtspec_fill(const usdt_note_t *note, uint8_t shift,
		      usdt_rtspec_t *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->flags = shift ? USDT_SPEC_SHIFTED : 0;
	rt->nargs = (uint32_t)(note->nargs < DTRACE_ARGS_MAX ?
			       note->nargs : DTRACE_ARGS_MAX);
	for (uint32_t i = 0; i < rt->nargs; i++) {
		const usdt_arg_t *a = &note->args[i];
		usdt_rtarg_t *r = &rt->args[i];
		r->loc = (uint8_t)a->loc;
		r->size = a->size ? a->size : 8;
		r->shift = (uint8_t)(64 - 8 * r->size);
		r->is_signed = a->is_signed;
		r->base = a->base;
		r->index = a->index;
		r->scale_shift = a->scale_shift;
		/* %rip reads past the note's address by the shift. */
		r->val = a->loc == USDT_LOC_MEM && a->base == DTRACE_CTX_IP ?
			 a->val - shift : a->val;
	}
}

int usdt_rtspec_store(int map_fd, uint32_t cookie, const usdt_rtspec_t *rt)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)map_fd;
	attr.key = (uint64_t)(uintptr_t)&cookie;
	attr.value = (uint64_t)(uintptr_t)rt;
	attr.flags = BPF_ANY;
	if (syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr)) != 0)
		return -errno;
	return 0;
}

/* The emission context: the host's emitter functions and the target. */
typedef struct tramp {
	const dtrace_host_t *h;
	dtrace_emitter_t *em;
} tramp_t;

static void emit(tramp_t *t, struct bpf_insn insn)
{
	t->h->bpf->emit(t->em, insn);
}

#define ARGV_OFF(i)	((int16_t)DTRACE_MSTATE_ARG(i))
#define RT_OFF(i, f)	((int16_t)(offsetof(usdt_rtspec_t, args) + \
				   (i) * sizeof(usdt_rtarg_t) + \
				   offsetof(usdt_rtarg_t, f)))

/*
 * dst = the pt_regs field at the byte offset in R3; goto bad when the
 * offset is out of bounds.  The verifier refuses a context load at a
 * variable offset: a load at each constant one, chosen by comparing R3,
 * costs a few instructions where a bpf_probe_read_kernel() call costs
 * tens of nanoseconds.  Uses R3 and dst only.
 */
static void emit_ctx_load(tramp_t *t, int dst, int bad)
{
	int got = t->h->bpf->label_new(t->em);

	for (int off = 0; off < USDT_PTREGS_SIZE; off += 8) {
		int next = t->h->bpf->label_new(t->em);
		t->h->bpf->jump(t->em, BPF_JNE, DT_R3, off, next);
		emit(t, DT_LOAD(BPF_DW, dst, DTRACE_REG_CTX, off));
		t->h->bpf->jump(t->em, BPF_JA, 0, 0, got);
		t->h->bpf->label_place(t->em, next);
	}
	t->h->bpf->jump(t->em, BPF_JA, 0, 0, bad);
	t->h->bpf->label_place(t->em, got);
}

/* R8 = the pt_regs field at the byte offset in R3, or goto bad.  A high
 * byte register (%ah) is one byte into its register's word: the word is
 * loaded and shifted down.  Uses R2 and R3. */
static void emit_read_reg(tramp_t *t, int bad)
{
	emit(t, DT_MOV64_REG(DT_R2, DT_R3));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R2, 7));
	emit(t, DT_ALU64_IMM(BPF_LSH, DT_R2, 3));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R3, -8));
	emit_ctx_load(t, DT_R8, bad);
	emit(t, DT_ALU64_REG(BPF_RSH, DT_R8, DT_R2));
}

/* R8 += index register << scale, when the spec has an index. */
static void emit_index(tramp_t *t, int i, int bad)
{
	int none = t->h->bpf->label_new(t->em);
	emit(t, DT_LOAD(BPF_B, DT_R3, DT_R9, RT_OFF(i, index)));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R3, USDT_NOREG, none);
	emit_ctx_load(t, DT_R1, bad);
	emit(t, DT_LOAD(BPF_B, DT_R2, DT_R9, RT_OFF(i, scale_shift)));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R2, 3));
	emit(t, DT_ALU64_REG(BPF_LSH, DT_R1, DT_R2));
	emit(t, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R1));
	t->h->bpf->label_place(t->em, none);
}

/* R8 = the declared-size value at user address R8 + displacement. */
static void emit_read_mem(tramp_t *t, int i, int bad)
{
	emit(t, DT_LOAD(BPF_DW, DT_R1, DT_R9, RT_OFF(i, val)));
	emit(t, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R1));
	emit(t, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, ARGV_OFF(i), 0));
	emit(t, DT_LOAD(BPF_B, DT_R2, DT_R9, RT_OFF(i, size)));
	t->h->bpf->jump(t->em, BPF_JGT, DT_R2, 8, bad);
	emit(t, DT_MOV64_REG(DT_R1, DTRACE_REG_MSTATE));
	emit(t, DT_ALU64_IMM(BPF_ADD, DT_R1, ARGV_OFF(i)));
	emit(t, DT_MOV64_REG(DT_R3, DT_R8));
	/* On a fault the helper zeroes the destination: the argument is 0. */
	emit(t, DT_CALL_HELPER(BPF_FUNC_probe_read_user));
	emit(t, DT_LOAD(BPF_DW, DT_R8, DTRACE_REG_MSTATE, ARGV_OFF(i)));
}

/* R8 = sign or zero extension of its low size bytes; argv[i] = R8. */
static void emit_extend_store(tramp_t *t, int i)
{
	int zext = t->h->bpf->label_new(t->em);
	int store = t->h->bpf->label_new(t->em);
	emit(t, DT_LOAD(BPF_B, DT_R1, DT_R9, RT_OFF(i, shift)));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R1, 63));
	emit(t, DT_ALU64_REG(BPF_LSH, DT_R8, DT_R1));
	emit(t, DT_LOAD(BPF_B, DT_R2, DT_R9, RT_OFF(i, is_signed)));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R2, 0, zext);
	emit(t, DT_ALU64_REG(BPF_ARSH, DT_R8, DT_R1));
	t->h->bpf->jump(t->em, BPF_JA, 0, 0, store);
	t->h->bpf->label_place(t->em, zext);
	emit(t, DT_ALU64_REG(BPF_RSH, DT_R8, DT_R1));
	t->h->bpf->label_place(t->em, store);
	emit(t, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV_OFF(i), DT_R8));
}

/* One argument: argv[i] from the spec entry i (R9). */
static void emit_arg(tramp_t *t, int i, int done)
{
	int next = t->h->bpf->label_new(t->em);
	int notimm = t->h->bpf->label_new(t->em);
	int nobase = t->h->bpf->label_new(t->em);
	int extend = t->h->bpf->label_new(t->em);

	emit(t, DT_LOAD(BPF_W, DT_R1, DT_R9, offsetof(usdt_rtspec_t, nargs)));
	t->h->bpf->jump(t->em, BPF_JLE, DT_R1, i, done);
	emit(t, DT_MOV64_IMM(DT_R8, 0));
	emit(t, DT_LOAD(BPF_B, DT_R1, DT_R9, RT_OFF(i, loc)));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R1, USDT_LOC_NONE, next);
	t->h->bpf->jump(t->em, BPF_JNE, DT_R1, USDT_LOC_IMM, notimm);
	emit(t, DT_LOAD(BPF_DW, DT_R8, DT_R9, RT_OFF(i, val)));
	t->h->bpf->jump(t->em, BPF_JA, 0, 0, extend);

	t->h->bpf->label_place(t->em, notimm);
	emit(t, DT_LOAD(BPF_B, DT_R3, DT_R9, RT_OFF(i, base)));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R3, USDT_NOREG, nobase);
	emit_read_reg(t, next);
	t->h->bpf->label_place(t->em, nobase);
	emit(t, DT_LOAD(BPF_B, DT_R1, DT_R9, RT_OFF(i, loc)));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R1, USDT_LOC_REG, extend);
	emit_index(t, i, next);
	emit_read_mem(t, i, next);

	t->h->bpf->label_place(t->em, extend);
	emit_extend_store(t, i);
	t->h->bpf->label_place(t->em, next);
}

/* mstate.instance = key.pid when (pid, regs_ip) is in procs.  R8 keeps
 * the cookie meanwhile. */
static void emit_registered(tramp_t *t, dtrace_map_t *procs)
{
	const int16_t pid = offsetof(dtrace_mstate_t, key.pid);
	const int16_t cookie = offsetof(dtrace_mstate_t, key.cookie);
	int no = t->h->bpf->label_new(t->em);

	_Static_assert(offsetof(dtrace_mstate_t, regs_ip) ==
		       offsetof(dtrace_mstate_t, key) +
		       offsetof(usdt_reg_mapkey_t, addr),
		       "the mstate's key and regs_ip make dtprobed's key");
	emit(t, DT_LOAD(BPF_W, DT_R8, DTRACE_REG_MSTATE, cookie));
	emit(t, DT_STORE_IMM(BPF_W, DTRACE_REG_MSTATE, cookie, 0));
	t->h->bpf->load_map(t->em, DT_R1, procs);
	emit(t, DT_MOV64_REG(DT_R2, DTRACE_REG_MSTATE));
	emit(t, DT_ALU64_IMM(BPF_ADD, DT_R2, offsetof(dtrace_mstate_t, key)));
	emit(t, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	emit(t, DT_STORE(BPF_W, DTRACE_REG_MSTATE, cookie, DT_R8));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R0, 0, no);
	emit(t, DT_LOAD(BPF_W, DT_R1, DTRACE_REG_MSTATE, pid));
	emit(t, DT_STORE(BPF_W, DTRACE_REG_MSTATE,
			 offsetof(dtrace_mstate_t, instance), DT_R1));
	t->h->bpf->label_place(t->em, no);
}

/* mstate.regs_ip -= 1: the note's address, where the probe is on the
 * 5-byte nop after it (usdt_place.c). */
static void emit_unshift_ip(tramp_t *t)
{
	const int16_t ip = offsetof(dtrace_mstate_t, regs_ip);

	emit(t, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_MSTATE, ip));
	emit(t, DT_ALU64_IMM(BPF_SUB, DT_R1, 1));
	emit(t, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ip, DT_R1));
}

/* The same at a site whose spec (R9) says USDT_SPEC_SHIFTED. */
static void emit_unshift_ip_if_shifted(tramp_t *t)
{
	int no = t->h->bpf->label_new(t->em);

	emit(t, DT_LOAD(BPF_W, DT_R1, DT_R9, offsetof(usdt_rtspec_t, flags)));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R1, USDT_SPEC_SHIFTED));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R1, 0, no);
	emit_unshift_ip(t);
	t->h->bpf->label_place(t->em, no);
}

/* The registration check at a site whose spec (R9) says USDT_SPEC_EVERY. */
static void emit_registered_if_every(tramp_t *t, dtrace_map_t *procs)
{
	int no = t->h->bpf->label_new(t->em);

	emit(t, DT_LOAD(BPF_W, DT_R1, DT_R9, offsetof(usdt_rtspec_t, flags)));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R1, USDT_SPEC_EVERY));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R1, 0, no);
	emit_registered(t, procs);
	t->h->bpf->label_place(t->em, no);
}

/* The trampoline of the sites not carried as code: their specs are
 * looked up by cookie; a cookie with no spec skips the firing. */
static void emit_lookup(tramp_t *t, dtrace_map_t *specs, dtrace_map_t *procs,
			int skip)
{
	int done = t->h->bpf->label_new(t->em);

	/* R9 = specs[cookie], the key read in place from the mstate. */
	t->h->bpf->load_map(t->em, DT_R1, specs);
	emit(t, DT_MOV64_REG(DT_R2, DTRACE_REG_MSTATE));
	emit(t, DT_ALU64_IMM(BPF_ADD, DT_R2,
			     offsetof(dtrace_mstate_t, key.cookie)));
	emit(t, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	t->h->bpf->jump(t->em, BPF_JEQ, DT_R0, 0, skip);
	emit(t, DT_MOV64_REG(DT_R9, DT_R0));
	emit_unshift_ip_if_shifted(t);
	if (procs != NULL)
		emit_registered_if_every(t, procs);

	/* The engine's prologue zeroed argv[]. */
	for (int i = 0; i < DTRACE_ARGS_MAX; i++)
		emit_arg(t, i, done);
	t->h->bpf->label_place(t->em, done);
}

/* --- sites carried as code: every field of the spec is a constant --- */

/* Whether the pt_regs byte offset off names a register the program may
 * read (a high byte register is one byte into its word). */
static bool ctx_reg_ok(uint8_t off)
{
	return off != USDT_NOREG && off < USDT_PTREGS_SIZE;
}

/* reg = v, in one instruction when it fits an immediate. */
static void emit_const(tramp_t *t, int reg, int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX) {
		emit(t, DT_MOV64_IMM(reg, (int32_t)v));
		return;
	}
	emit(t, DT_LD_IMM64_LO(reg, 0, v));
	emit(t, DT_LD_IMM64_HI(v));
}

/* The value of an argument of size bytes, extended to 64 bits. */
static int64_t extend_const(int64_t v, uint8_t size, bool is_signed)
{
	if (size >= 8)
		return v;
	unsigned shift = 64u - 8u * size;
	uint64_t u = (uint64_t)v << shift;
	return is_signed ? (int64_t)u >> shift : (int64_t)(u >> shift);
}

/* R8 = its low size bytes, sign- or zero-extended. */
static void emit_extend_known(tramp_t *t, const usdt_rtarg_t *a)
{
	if (a->size >= 8)
		return;
	int32_t shift = 64 - 8 * a->size;
	emit(t, DT_ALU64_IMM(BPF_LSH, DT_R8, shift));
	emit(t, DT_ALU64_IMM(a->is_signed ? BPF_ARSH : BPF_RSH, DT_R8, shift));
}

/* R3 = the address [base] + [index << scale] + displacement. */
static void emit_address_known(tramp_t *t, const usdt_rtarg_t *a)
{
	if (a->base != USDT_NOREG)
		emit(t, DT_LOAD(BPF_DW, DT_R3, DTRACE_REG_CTX, a->base));
	else
		emit(t, DT_MOV64_IMM(DT_R3, 0));
	if (a->index != USDT_NOREG) {
		emit(t, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX, a->index));
		if (a->scale_shift & 3)
			emit(t, DT_ALU64_IMM(BPF_LSH, DT_R1,
					     a->scale_shift & 3));
		emit(t, DT_ALU64_REG(BPF_ADD, DT_R3, DT_R1));
	}
	if (a->val != 0) {
		emit_const(t, DT_R1, a->val);
		emit(t, DT_ALU64_REG(BPF_ADD, DT_R3, DT_R1));
	}
}

/* argv[i] = the value the spec a describes, read by straight-line code. */
static void emit_arg_known(tramp_t *t, int i, const usdt_rtarg_t *a)
{
	bool regs_ok = (a->base == USDT_NOREG || ctx_reg_ok(a->base)) &&
		       (a->index == USDT_NOREG || ctx_reg_ok(a->index));

	if (a->size == 0 || a->size > 8 || !regs_ok)
		return;		/* as the lookup's: reads as 0 */
	switch (a->loc) {
	case USDT_LOC_IMM:
		emit_const(t, DT_R8, extend_const(a->val, a->size,
						  a->is_signed));
		break;
	case USDT_LOC_REG:
		if (a->base == USDT_NOREG)
			return;
		emit(t, DT_LOAD(BPF_DW, DT_R8, DTRACE_REG_CTX, a->base & ~7));
		if (a->base & 7)
			emit(t, DT_ALU64_IMM(BPF_RSH, DT_R8, 8 * (a->base & 7)));
		emit_extend_known(t, a);
		break;
	case USDT_LOC_MEM:
		/* Exactly size bytes into the zeroed slot: zero-extended
		 * as read (and 0 on a fault, which the helper zeroes). */
		emit_address_known(t, a);
		emit(t, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, ARGV_OFF(i), 0));
		emit(t, DT_MOV64_REG(DT_R1, DTRACE_REG_MSTATE));
		emit(t, DT_ALU64_IMM(BPF_ADD, DT_R1, ARGV_OFF(i)));
		emit(t, DT_MOV64_IMM(DT_R2, a->size));
		emit(t, DT_CALL_HELPER(BPF_FUNC_probe_read_user));
		if (!a->is_signed || a->size >= 8)
			return;
		emit(t, DT_LOAD(BPF_DW, DT_R8, DTRACE_REG_MSTATE, ARGV_OFF(i)));
		emit_extend_known(t, a);
		break;
	default:
		return;
	}
	emit(t, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV_OFF(i), DT_R8));
}

/* One site's code: its registration check, then its arguments. */
static void emit_site(tramp_t *t, const usdt_rtspec_t *spec,
		      dtrace_map_t *procs, uint64_t args_read)
{
	if (spec->flags & USDT_SPEC_SHIFTED)
		emit_unshift_ip(t);
	if (procs != NULL && (spec->flags & USDT_SPEC_EVERY))
		emit_registered(t, procs);
	for (uint32_t i = 0; i < spec->nargs && i < DTRACE_ARGS_MAX; i++)
		if (args_read & (1ull << i))
			emit_arg_known(t, (int)i, &spec->args[i]);
}

/* The lookup as a function at label: called with the context in R1 and
 * the mstate in R2, it returns 0 when the firing is to be skipped. */
static void emit_lookup_function(tramp_t *t, int label, dtrace_map_t *specs,
				 dtrace_map_t *procs)
{
	int skip = t->h->bpf->label_new(t->em);

	t->h->bpf->label_place(t->em, label);
	emit(t, DT_MOV64_REG(DTRACE_REG_CTX, DT_R1));
	emit(t, DT_MOV64_REG(DTRACE_REG_MSTATE, DT_R2));
	emit_lookup(t, specs, procs, skip);
	emit(t, DT_MOV64_IMM(DT_R0, 1));
	emit(t, DT_EXIT());
	t->h->bpf->label_place(t->em, skip);
	emit(t, DT_MOV64_IMM(DT_R0, 0));
	emit(t, DT_EXIT());
}

void usdt_tramp_emit(const dtrace_host_t *host, dtrace_emitter_t *em,
		     const dtrace_trampoline_t *tr, dtrace_map_t *specs,
		     dtrace_map_t *procs, const usdt_tramp_site_t *sites,
		     int nsites)
{
	tramp_t t = { host, em };
	uint64_t args_read = tr->args_read;
	int skip = tr->skip, pass = tr->prefilter_pass;
	int done = host->bpf->label_new(em);
	int labels[USDT_INLINE_SITES];

	if (nsites > USDT_INLINE_SITES)
		nsites = 0;
	/* A program of one site for good fires at no other. */
	if (nsites == 1 && tr->sole_cookie == sites[0].cookie) {
		emit_site(&t, sites[0].spec, procs, args_read);
		return;
	}
	/* In the prefilter, the last site's code follows the test of its
	 * cookie, which goes to the full path when it fails. */
	int direct = pass >= 0 && nsites > 0 ? nsites - 1 : -1;
	/* The firing cookie chooses its site's code; others go to the
	 * lookup, or from the prefilter to the full path. */
	if (nsites > 0)
		emit(&t, DT_LOAD(BPF_W, DT_R1, DTRACE_REG_MSTATE,
				 offsetof(dtrace_mstate_t, key.cookie)));
	for (int s = 0; s < nsites; s++) {
		labels[s] = host->bpf->label_new(em);
		if (s == direct)
			host->bpf->jump(em, BPF_JNE, DT_R1,
					(int32_t)sites[s].cookie, pass);
		else
			host->bpf->jump(em, BPF_JEQ, DT_R1,
					(int32_t)sites[s].cookie, labels[s]);
	}
	if (direct >= 0) {
		/* falls through to its site */
	} else if (nsites > 0) {
		/* Sites placed while tracing: the lookup, a function at the
		 * program's end. */
		int lookup = host->bpf->label_new(em);
		emit(&t, DT_MOV64_REG(DT_R1, DTRACE_REG_CTX));
		emit(&t, DT_MOV64_REG(DT_R2, DTRACE_REG_MSTATE));
		host->bpf->call(em, lookup);
		host->bpf->jump(em, BPF_JEQ, DT_R0, 0, skip);
		host->bpf->jump(em, BPF_JA, 0, 0, done);
		host->bpf->cold(em, 1);
		emit_lookup_function(&t, lookup, specs, procs);
		host->bpf->cold(em, 0);
	} else {
		emit_lookup(&t, specs, procs, skip);
	}
	for (int k = 0; k < nsites; k++) {
		int s = direct >= 0 ? (direct + k) % nsites : k;
		if (k > 0)
			host->bpf->jump(em, BPF_JA, 0, 0, done);
		host->bpf->label_place(em, labels[s]);
		emit_site(&t, sites[s].spec, procs, args_read);
	}
	host->bpf->label_place(em, done);
}
