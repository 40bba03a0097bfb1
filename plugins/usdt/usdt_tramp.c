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
 * At a site where the probe for every process is overlaid (USDT_SPEC_EVERY),
 * the trampoline also looks the firing process's (pid, site address) up in
 * dtprobed's pinned map (usdt_reg.h), whose key is laid out as the mstate's
 * key followed by regs_ip: the key is read in place, its cookie half zeroed
 * for the lookup.  Found: the process registered the site, and its firing
 * is its own probe's (mstate.instance, DTRACE_PROBE_TEMPLATE), even before
 * the plugin heard of the registration.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "usdt_impl.h"
#include "usdt_reg.h"

void usdt_rtspec_fill(const usdt_note_t *note, usdt_rtspec_t *rt)
{
	memset(rt, 0, sizeof(*rt));
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
		r->val = a->val;
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
	t->h->emit(t->em, insn);
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
	int got = t->h->label_new(t->em);

	for (int off = 0; off < USDT_PTREGS_SIZE; off += 8) {
		int next = t->h->label_new(t->em);
		t->h->jump(t->em, BPF_JNE, DT_R3, off, next);
		emit(t, DT_LOAD(BPF_DW, dst, DTRACE_REG_CTX, off));
		t->h->jump(t->em, BPF_JA, 0, 0, got);
		t->h->label_place(t->em, next);
	}
	t->h->jump(t->em, BPF_JA, 0, 0, bad);
	t->h->label_place(t->em, got);
}

/* R8 = the pt_regs field at the byte offset in R3, or goto bad. */
static void emit_read_reg(tramp_t *t, int i, int bad)
{
	emit_ctx_load(t, DT_R8, bad);
}

/* R8 += index register << scale, when the spec has an index. */
static void emit_index(tramp_t *t, int i, int bad)
{
	int none = t->h->label_new(t->em);
	emit(t, DT_LOAD(BPF_B, DT_R3, DT_R9, RT_OFF(i, index)));
	t->h->jump(t->em, BPF_JEQ, DT_R3, USDT_NOREG, none);
	emit_ctx_load(t, DT_R1, bad);
	emit(t, DT_LOAD(BPF_B, DT_R2, DT_R9, RT_OFF(i, scale_shift)));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R2, 3));
	emit(t, DT_ALU64_REG(BPF_LSH, DT_R1, DT_R2));
	emit(t, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R1));
	t->h->label_place(t->em, none);
}

/* R8 = the declared-size value at user address R8 + displacement. */
static void emit_read_mem(tramp_t *t, int i, int bad)
{
	emit(t, DT_LOAD(BPF_DW, DT_R1, DT_R9, RT_OFF(i, val)));
	emit(t, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R1));
	emit(t, DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, ARGV_OFF(i), 0));
	emit(t, DT_LOAD(BPF_B, DT_R2, DT_R9, RT_OFF(i, size)));
	t->h->jump(t->em, BPF_JGT, DT_R2, 8, bad);
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
	int zext = t->h->label_new(t->em);
	int store = t->h->label_new(t->em);
	emit(t, DT_LOAD(BPF_B, DT_R1, DT_R9, RT_OFF(i, shift)));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R1, 63));
	emit(t, DT_ALU64_REG(BPF_LSH, DT_R8, DT_R1));
	emit(t, DT_LOAD(BPF_B, DT_R2, DT_R9, RT_OFF(i, is_signed)));
	t->h->jump(t->em, BPF_JEQ, DT_R2, 0, zext);
	emit(t, DT_ALU64_REG(BPF_ARSH, DT_R8, DT_R1));
	t->h->jump(t->em, BPF_JA, 0, 0, store);
	t->h->label_place(t->em, zext);
	emit(t, DT_ALU64_REG(BPF_RSH, DT_R8, DT_R1));
	t->h->label_place(t->em, store);
	emit(t, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV_OFF(i), DT_R8));
}

/* One argument: argv[i] from the spec entry i (R9). */
static void emit_arg(tramp_t *t, int i, int done)
{
	int next = t->h->label_new(t->em);
	int notimm = t->h->label_new(t->em);
	int nobase = t->h->label_new(t->em);
	int extend = t->h->label_new(t->em);

	emit(t, DT_LOAD(BPF_W, DT_R1, DT_R9, offsetof(usdt_rtspec_t, nargs)));
	t->h->jump(t->em, BPF_JLE, DT_R1, i, done);
	emit(t, DT_MOV64_IMM(DT_R8, 0));
	emit(t, DT_LOAD(BPF_B, DT_R1, DT_R9, RT_OFF(i, loc)));
	t->h->jump(t->em, BPF_JEQ, DT_R1, USDT_LOC_NONE, next);
	t->h->jump(t->em, BPF_JNE, DT_R1, USDT_LOC_IMM, notimm);
	emit(t, DT_LOAD(BPF_DW, DT_R8, DT_R9, RT_OFF(i, val)));
	t->h->jump(t->em, BPF_JA, 0, 0, extend);

	t->h->label_place(t->em, notimm);
	emit(t, DT_LOAD(BPF_B, DT_R3, DT_R9, RT_OFF(i, base)));
	t->h->jump(t->em, BPF_JEQ, DT_R3, USDT_NOREG, nobase);
	emit_read_reg(t, i, next);
	t->h->label_place(t->em, nobase);
	emit(t, DT_LOAD(BPF_B, DT_R1, DT_R9, RT_OFF(i, loc)));
	t->h->jump(t->em, BPF_JEQ, DT_R1, USDT_LOC_REG, extend);
	emit_index(t, i, next);
	emit_read_mem(t, i, next);

	t->h->label_place(t->em, extend);
	emit_extend_store(t, i);
	t->h->label_place(t->em, next);
}

/* mstate.instance = key.pid when (pid, regs_ip) is in procs, at a site of
 * USDT_SPEC_EVERY (spec in R9).  R8 keeps the cookie meanwhile. */
static void emit_registered(tramp_t *t, dtrace_map_t *procs)
{
	const int16_t pid = offsetof(dtrace_mstate_t, key.pid);
	const int16_t cookie = offsetof(dtrace_mstate_t, key.cookie);
	int no = t->h->label_new(t->em);

	_Static_assert(offsetof(dtrace_mstate_t, regs_ip) ==
		       offsetof(dtrace_mstate_t, key) +
		       offsetof(usdt_reg_mapkey_t, addr),
		       "the mstate's key and regs_ip make dtprobed's key");
	emit(t, DT_LOAD(BPF_W, DT_R1, DT_R9, offsetof(usdt_rtspec_t, flags)));
	emit(t, DT_ALU64_IMM(BPF_AND, DT_R1, USDT_SPEC_EVERY));
	t->h->jump(t->em, BPF_JEQ, DT_R1, 0, no);
	emit(t, DT_LOAD(BPF_W, DT_R8, DTRACE_REG_MSTATE, cookie));
	emit(t, DT_STORE_IMM(BPF_W, DTRACE_REG_MSTATE, cookie, 0));
	t->h->load_map(t->em, DT_R1, procs);
	emit(t, DT_MOV64_REG(DT_R2, DTRACE_REG_MSTATE));
	emit(t, DT_ALU64_IMM(BPF_ADD, DT_R2, offsetof(dtrace_mstate_t, key)));
	emit(t, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	emit(t, DT_STORE(BPF_W, DTRACE_REG_MSTATE, cookie, DT_R8));
	t->h->jump(t->em, BPF_JEQ, DT_R0, 0, no);
	emit(t, DT_LOAD(BPF_W, DT_R1, DTRACE_REG_MSTATE, pid));
	emit(t, DT_STORE(BPF_W, DTRACE_REG_MSTATE,
			 offsetof(dtrace_mstate_t, instance), DT_R1));
	t->h->label_place(t->em, no);
}

void usdt_tramp_emit(const dtrace_host_t *host, dtrace_emitter_t *em,
		     dtrace_map_t *specs, dtrace_map_t *procs, int skip)
{
	tramp_t t = { host, em };
	int done = host->label_new(em);

	/* R9 = specs[cookie], the key read in place from the mstate. */
	host->load_map(em, DT_R1, specs);
	emit(&t, DT_MOV64_REG(DT_R2, DTRACE_REG_MSTATE));
	emit(&t, DT_ALU64_IMM(BPF_ADD, DT_R2,
			      offsetof(dtrace_mstate_t, key.cookie)));
	emit(&t, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	host->jump(em, BPF_JEQ, DT_R0, 0, skip);
	emit(&t, DT_MOV64_REG(DT_R9, DT_R0));
	if (procs != NULL)
		emit_registered(&t, procs);

	/* The engine's prologue zeroed argv[]. */
	for (int i = 0; i < DTRACE_HOST_ARGS_MAX(host); i++)
		emit_arg(&t, i, done);
	host->label_place(em, done);
}
