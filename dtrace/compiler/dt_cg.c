/* SPDX-License-Identifier: MIT */
/*
 * dt_cg.c: the code generator's entry points: one clause in, one BPF
 * function out, plus the session-wide state behind dtp->cg.
 *
 * A clause compiles to
 *
 *	int clause(struct pt_regs *ctx, dt_mstate_t *mst)
 *
 *	prologue	save ctx in the frame, r9 = mst, clear the action mask
 *	predicate	false: return 0, nothing recorded
 *	statements	in order; actions write their data into the record
 *			buffer of the mstate area as they run
 *	record		header (clause, prid, cpu), bpf_ringbuf_output() to
 *			"output"; a full buffer counts cpuinfo.buf_drops
 *	return 0
 *	fault sites	store mst->fault, fault_action (the 1-based statement,
 *			0 in the predicate), fault_pc and fault_addr, return 1
 *	subprograms	string helpers (dt_cg_str.c), called with dt_as_call
 *
 * The BPF stack frame of a clause (offsets from r10; dt_cg_impl.h):
 *
 *	fp - 8			ctx, saved at entry (uregs[], ucaller)
 *	fp - 16 - 8 * i		spill slot i of the register pool, i < 8
 *	fp - 136 .. fp - 73	the context of string scans: eight u64 slots,
 *				filled right before each call
 *
 * 136 bytes in all.  Nothing else goes on the stack: helper arguments (map
 * keys, values, read destinations) are staged in the mstate area, whose
 * layout follows.  Offsets are from the start of the mstate value:
 *
 *	cg_area			the values of aggregations without keys
 *				(DT_CG_AGGMST bytes, dt_cg_agg.c): on the
 *				page every firing touches, read by the
 *				consumer through the map's mapping
 *	off_scratch		scratch, 64 bytes: +0 u32 key for ARRAY maps,
 *				+8 staged map value, +16 read staging,
 *				+24 initial aggregation value, +40 turning
 *				addresses into numbers (dt_cg_mst_offset)
 *	off_key			tuple keys being built, two nesting levels of
 *				key_max bytes
 *	off_rec			the record: dt_rechdr_t, then rec_max bytes
 *	off_aggval		strsize zero bytes: the empty string
 *	off_cmp			two strsize buffers where strcmp pads its
 *				operands with NULs (DT_CG_CMP_MIN bytes at
 *				least: lltostr's digits)
 *	off_strtok		strtok's string (strsize bytes), kept from
 *				one call to the next
 *	off_temps		string temporaries, 2 * strsize bytes each,
 *				reused by every statement
 *	off_this		this-> variables
 *
 * Register conventions: see dt_cg_impl.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "dt_btf.h"
#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
#define DT_CG_NTEMPS	8	/* temporaries kept before the record shrinks */
#define DT_CG_NTEMPS_MAX 32	/* as many as fit beside a full record */

static uint32_t align8(uint32_t v)
{
	return (v + 7) & ~7u;
}

/* Lay the mstate area out for strsize.  The record buffer gets what the
 * other regions leave of DT_MSTATE_MAX (keeping DT_THIS_RESERVE for this->
 * variables), up to DT_REC_MAX; string temporaries take what a full
 * record leaves, up to DT_CG_NTEMPS_MAX, and at least DT_CG_NTEMPS unless
 * the strings are so large that the record would get less than
 * DT_REC_MIN.  Keys come first, beside the arguments: a firing that
 * aggregates touches the fewest pages of the mstate (each costs a TLB
 * miss after the trap on kernels that flush it on entry). */
#define DT_REC_MAX	16384
#define DT_REC_MIN	2048
#define DT_THIS_RESERVE	4096
static void layout(dt_cg_state_t *st)
{
	uint32_t ss = st->strsize, p2 = 8, cmp;
	int64_t room;

	while (p2 < ss)
		p2 <<= 1;
	cmp = p2 + align8(ss) < DT_CG_CMP_MIN ? DT_CG_CMP_MIN : p2 + align8(ss);
	st->key_max = 8 + 4 * align8(ss);	/* four string keys */
	st->aggval_max = align8(ss);
	for (st->ntemps = DT_CG_NTEMPS_MAX; ; st->ntemps--) {
		/* strcmp uses 2 * strsize; index a power-of-two window +
		 * strsize */
		uint32_t fixed = DT_CG_AGGMST + 64 + 2 * st->key_max +
				 st->aggval_max +
				 cmp + align8(ss) +
				 st->ntemps * 2 * align8(ss);
		room = (int64_t)DT_MSTATE_MAX - DT_MST_AREA - DT_THIS_RESERVE -
		       fixed - (int64_t)sizeof(dt_rechdr_t);
		if (room >= DT_REC_MAX || st->ntemps == 2 ||
		    (st->ntemps <= DT_CG_NTEMPS && room >= DT_REC_MIN))
			break;
	}
	st->rec_max = room < 0 ? 0 : room > DT_REC_MAX ? DT_REC_MAX :
		      (uint32_t)room & ~7u;
	st->off_aggmst = DT_MST_AREA;
	st->off_scratch = st->off_aggmst + DT_CG_AGGMST;
	st->off_key = st->off_scratch + 64;
	st->off_rec = st->off_key + 2 * st->key_max;
	st->off_aggval = st->off_rec + (uint32_t)sizeof(dt_rechdr_t) +
			 st->rec_max;
	st->off_cmp = st->off_aggval + st->aggval_max;
	st->off_strtok = st->off_cmp + cmp;
	st->off_temps = st->off_strtok + align8(ss);
	st->off_this = st->off_temps + st->ntemps * 2 * align8(ss);
}

dt_cg_state_t *dt_cg_state(dtrace_hdl_t *dtp)
{
	if (dtp->cg == NULL) {
		dt_cg_state_t *st = dt_zalloc(sizeof(*st));
		st->dtp = dtp;
		st->strsize = dt_str_bytes(dtp);
		st->strroom = align8(st->strsize);
		layout(st);
		st->strtab = dt_zalloc(64);
		st->strtab_cap = 64;
		st->strtab_len = 1;	/* "" at offset 0 */
		dtp->cg = st;
	}
	return dtp->cg;
}

dtrace_map_t *dt_cg_map(dt_cg_state_t *st, const char *name,
			enum bpf_map_type type, uint32_t ksize, uint32_t vsize,
			uint32_t nentries)
{
	for (dt_cg_map_t *m = st->maps; m != NULL; m = m->next)
		if (strcmp(m->pm.name, name) == 0)
			return &m->pm;
	dt_cg_map_t *m = dt_zalloc(sizeof(*m));
	m->pm.name = dt_strdup(name);
	m->pm.fd = -1;
	m->pm.type = type;
	m->pm.ksize = ksize;
	m->pm.vsize = vsize;
	m->pm.nentries = nentries;
	m->next = st->maps;
	st->maps = m;
	return &m->pm;
}

_Noreturn void dt_cg_ice(dt_cg_t *cx, const char *what)
{
	dt_pcb_error(cx->pcb, D_UNKNOWN, 0, "internal error in the code "
		     "generator: %s", what);
}

/* ---- small emitters ---- */

void dt_cg_mst_ptr(dt_cg_t *cx, int reg, uint32_t off)
{
	EMIT(DT_MOV64_REG(reg, DT_R9));
	EMIT(DT_ALU64_IMM(BPF_ADD, reg, (int32_t)off));
}

void dt_cg_array_value(dt_cg_t *cx, dtrace_map_t *map, int fail)
{
	EMIT(DT_STORE_IMM(BPF_W, DT_R9, (int16_t)cx->st->off_scratch, 0));
	dt_as_load_map(cx->as, DT_R1, map);
	dt_cg_mst_ptr(cx, DT_R2, cx->st->off_scratch);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, fail);
}

void dt_cg_count_drop(dt_cg_t *cx, uint32_t field_off)
{
	int skip = dt_as_label(cx->as);

	dt_cg_array_value(cx, dt_cg_map(cx->st, "cpuinfo",
		BPF_MAP_TYPE_PERCPU_ARRAY, 4, sizeof(dt_cpuinfo_t), 1), skip);
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R0, (int16_t)field_off));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
	EMIT(DT_STORE(BPF_DW, DT_R0, (int16_t)field_off, DT_R1));
	dt_as_place(cx->as, skip);
}

void dt_cg_fault(dt_cg_t *cx, dt_fault_t fault, int addr_reg)
{
	uint32_t pc = cx->as->ninsns;

	EMIT(DT_STORE_IMM(BPF_W, DT_R9, DT_MST_OFF(fault), (int32_t)fault));
	EMIT(DT_STORE_IMM(BPF_W, DT_R9, DT_MST_OFF(fault_action), cx->stmt));
	EMIT(DT_STORE_IMM(BPF_W, DT_R9, DT_MST_OFF(fault_pc), (int32_t)pc));
	if (addr_reg >= 0)
		EMIT(DT_STORE(BPF_DW, DT_R9, DT_MST_OFF(fault_addr), addr_reg));
	else
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, DT_MST_OFF(fault_addr), 0));
	EMIT(DT_MOV64_IMM(DT_R0, 1));
	EMIT(DT_EXIT());
}

/* if (reg op imm) fault */
void dt_cg_fault_if(dt_cg_t *cx, int op, int reg, int32_t imm,
		    dt_fault_t fault, int addr_reg)
{
	int bad = dt_as_label(cx->as), ok = dt_as_label(cx->as);

	dt_as_jump(cx->as, op, reg, imm, bad);
	dt_as_jump(cx->as, BPF_JA, 0, 0, ok);
	dt_as_place(cx->as, bad);
	dt_cg_fault(cx, fault, addr_reg);
	dt_as_place(cx->as, ok);
}

/*
 * A read from an address D code holds: user memory, or the mstate when
 * the address came from copyin() (a copy in a string temporary).  The
 * offset from the mstate tells them apart at run time; only addresses
 * inside this CPU's mstate are read as kernel memory, so a script cannot
 * read the kernel through a cast.
 */
void dt_cg_probe_read(dt_cg_t *cx, bool str)
{
	if (cx->kernel_deref) {
		EMIT(DT_CALL_HELPER(str ? BPF_FUNC_probe_read_kernel_str
					: BPF_FUNC_probe_read_kernel));
		return;
	}
	dt_cg_probe_read_user(cx, str);
}

void dt_cg_uregs_ptr(dt_cg_t *cx, int reg)
{
	if (!cx->uregs_task) {
		EMIT(DT_LOAD(BPF_DW, reg, DT_FP, DT_FRAME_CTX));
		return;
	}
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_task_btf));
	EMIT(DT_MOV64_REG(DT_R1, DT_R0));
	EMIT(DT_CALL_HELPER(BPF_FUNC_task_pt_regs));
	if (reg != DT_R0)
		EMIT(DT_MOV64_REG(reg, DT_R0));
}

/* One sign-extending move (BPF ISA v4, Linux 6.6+), else a move and two
 * shifts, which older kernels' verifiers take. */
void dt_cg_movsx(dt_cg_t *cx, int d, int s, int bits)
{
	if (dt_bpf_features(cx->st->dtp)->movsx) {
		EMIT(DT_INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, bits, 0));
		return;
	}
	if (d != s)
		EMIT(DT_MOV64_REG(d, s));
	EMIT(DT_ALU64_IMM(BPF_LSH, d, 64 - bits));
	EMIT(DT_ALU64_IMM(BPF_ARSH, d, 64 - bits));
}

/* Signed division (BPF ISA v4), else an unsigned one of the magnitudes
 * and the sign put back: a quotient is negative when one operand is, a
 * remainder has the dividend's sign, as in C. */
void dt_cg_sdiv(dt_cg_t *cx, int a, bool mod)
{
	int op = mod ? BPF_MOD : BPF_DIV;
	int apos = dt_as_label(cx->as), bpos = dt_as_label(cx->as);
	int done = dt_as_label(cx->as);

	if (dt_bpf_features(cx->st->dtp)->movsx) {
		EMIT(DT_INSN(BPF_ALU64 | op | BPF_X, a, DT_R0, 1, 0));
		return;
	}
	EMIT(DT_MOV64_IMM(DT_R1, 0));		/* negate the result */
	EMIT(DT_MOV64_REG(DT_R2, a));
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
	dt_as_jump(cx->as, BPF_JSGE, DT_R2, 0, apos);
	EMIT(DT_NEG64(DT_R2));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R1, 1));
	dt_as_place(cx->as, apos);
	dt_as_jump(cx->as, BPF_JSGE, DT_R3, 0, bpos);
	EMIT(DT_NEG64(DT_R3));
	if (!mod)
		EMIT(DT_ALU64_IMM(BPF_XOR, DT_R1, 1));
	dt_as_place(cx->as, bpos);
	EMIT(DT_ALU64_REG(op, DT_R2, DT_R3));
	dt_as_jump(cx->as, BPF_JEQ, DT_R1, 0, done);
	EMIT(DT_NEG64(DT_R2));
	dt_as_place(cx->as, done);
	EMIT(DT_MOV64_REG(a, DT_R2));
}

/* Emit: jump to in when the r2 bytes at mstate offset r4 lie in span sp
 * (a string: its first byte, its read stops at its NUL); uses r0. */
static void span_check(dt_cg_t *cx, const dt_cg_span_t *sp, bool str,
		       int in)
{
	int out = dt_as_label(cx->as);

	if (sp->lo == sp->hi)
		return;
	dt_as_jump(cx->as, BPF_JLT, DT_R4, (int32_t)sp->lo, out);
	if (str) {
		dt_as_jump(cx->as, BPF_JLT, DT_R4, (int32_t)sp->hi, in);
	} else {
		EMIT(DT_MOV64_REG(DT_R0, DT_R4));
		EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R2));
		dt_as_jump(cx->as, BPF_JLE, DT_R0, (int32_t)sp->hi, in);
	}
	dt_as_place(cx->as, out);
}

/*
 * The read of dt_cg_probe_read_user() from the mstate, r4 bytes into it:
 * only what the clause's pointers may reach (cx->scratch, st->xlated)
 * may be read; elsewhere r0 is -EFAULT, as the helper's failure, which
 * the caller turns into its fault.
 */
static void mstate_read(dt_cg_t *cx, bool str, int done)
{
	int in = dt_as_label(cx->as);

	span_check(cx, &cx->scratch, str, in);
	span_check(cx, &cx->st->xlated, str, in);
	EMIT(DT_MOV64_IMM(DT_R0, -EFAULT));
	if (cx->scratch.lo == cx->scratch.hi &&
	    cx->st->xlated.lo == cx->st->xlated.hi)
		return;		/* no read: the verifier refuses dead code */
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, in);
	EMIT(DT_CALL_HELPER(str ? BPF_FUNC_probe_read_kernel_str
				: BPF_FUNC_probe_read_kernel));
}

void dt_cg_probe_read_user(dt_cg_t *cx, bool str)
{
	int user = dt_as_label(cx->as), done = dt_as_label(cx->as);

	dt_cg_mst_offset(cx, DT_R4, DT_R3);
	dt_as_jump(cx->as, BPF_JGE, DT_R4, DT_MSTATE_MAX, user);
	mstate_read(cx, str, done);
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, user);
	EMIT(DT_CALL_HELPER(str ? BPF_FUNC_probe_read_user_str
				: BPF_FUNC_probe_read_user));
	dt_as_place(cx->as, done);
}

/*
 * d = addr - the mstate, as a plain number.  The verifier refuses
 * arithmetic between a number and the mstate pointer, but a value loaded
 * from a map is always a number: both go through the scratch word at +40
 * (storing a pointer in a map is allowed to a privileged loader).  Uses r5.
 */
void dt_cg_mst_offset(dt_cg_t *cx, int d, int addr)
{
	int16_t w = (int16_t)(cx->st->off_scratch + 40);

	EMIT(DT_STORE(BPF_DW, DT_R9, w, addr));
	EMIT(DT_LOAD(BPF_DW, d, DT_R9, w));
	EMIT(DT_STORE(BPF_DW, DT_R9, w, DT_R9));
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R9, w));
	EMIT(DT_ALU64_REG(BPF_SUB, d, DT_R5));
}

/* A NULL string (strchr, strrchr, strstr found nothing) used as a string
 * faults as DTrace does: invalid address (0x0). */
void dt_cg_str_notnull(dt_cg_t *cx, int reg)
{
	dt_cg_fault_if(cx, BPF_JEQ, reg, 0, DT_FAULT_BADADDR, reg);
}

void dt_cg_str_cut(dt_cg_t *cx, uint32_t t, uint32_t len)
{
	if (len > cx->st->strsize)
		EMIT(DT_STORE_IMM(BPF_B, DT_R9,
				  (int16_t)(t + cx->st->strsize - 1), 0));
}

void dt_cg_copy_str(dt_cg_t *cx, uint32_t dst_off, int src_reg)
{
	dt_cg_str_notnull(cx, src_reg);
	dt_cg_mst_ptr(cx, DT_R1, dst_off);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)cx->st->strsize));
	EMIT(DT_MOV64_REG(DT_R3, src_reg));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
}

/* Temporaries below temps_kept hold copyin() results, which live until
 * the end of the clause, as DTrace's scratch memory does. */
uint32_t dt_cg_temp(dt_cg_t *cx)
{
	if (cx->ntemps < cx->temps_kept)
		cx->ntemps = cx->temps_kept;
	if (cx->ntemps >= cx->st->ntemps)
		dt_pcb_error(cx->pcb, D_STACK_SIZE, 0, "statement %d needs "
			     "more than %u string temporaries%s", cx->stmt,
			     cx->st->ntemps, cx->temps_kept ? " (copyin() "
			     "results take theirs until the end of the "
			     "clause)" : "");
	return cx->st->off_temps + cx->ntemps++ * 2 * cx->st->strroom;
}

uint32_t dt_cg_rec_alloc(dt_cg_t *cx, uint32_t size)
{
	uint32_t off = align8(cx->recsize);

	if (off + size > cx->st->rec_max)
		dt_pcb_error(cx->pcb, D_STACK_SIZE, 0, "the clause records "
			     "more than %u bytes", cx->st->rec_max);
	cx->recsize = off + align8(size);
	return off;
}

dt_actdesc_t *dt_cg_act_new(dt_cg_t *cx, dt_actkind_t kind, int line)
{
	if (cx->nacts == cx->acts_cap) {
		cx->acts_cap = cx->acts_cap ? 2 * cx->acts_cap : 8;
		cx->acts = dt_realloc(cx->acts, sizeof(*cx->acts) *
				      (size_t)cx->acts_cap);
	}
	dt_actdesc_t *ad = &cx->acts[cx->nacts++];
	if (cx->cc != NULL) {	/* owned by the clause from now on */
		cx->cc->acts = cx->acts;
		cx->cc->nacts = cx->nacts;
	}
	memset(ad, 0, sizeof(*ad));
	ad->kind = kind;
	ad->line = line;
	return ad;
}

dt_recdesc_t *dt_cg_rec_new(dt_cg_t *cx, dt_actdesc_t *ad)
{
	ad->recs = dt_realloc(ad->recs, sizeof(*ad->recs) *
			      (size_t)(ad->nrecs + 1));
	dt_recdesc_t *rd = &ad->recs[ad->nrecs++];
	memset(rd, 0, sizeof(*rd));
	return rd;
}

/* ---- kernel BTF ---- */

int32_t dt_cg_btf_offset(dt_cg_state_t *st, const char *sou,
			 const char *member)
{
	return dt_btf_member_offset(st->dtp, sou, member);
}

/* ---- statements ---- */

static bool is_agg_assign(const dt_node_t *e)
{
	return e->kind == DT_N_BINARY && e->op == DT_OP_ASSIGN &&
	       (e->l->kind == DT_N_AGG || (e->l->kind == DT_N_INDEX &&
					   e->l->l->kind == DT_N_AGG));
}

static bool is_action(const dt_node_t *e)
{
	const dt_funcinfo_t *fi;

	return e->kind == DT_N_CALL && (fi = dt_func_lookup(e->name)) != NULL &&
	       fi->fclass == DT_FC_ACTION;
}

static void cg_stmts(dt_cg_t *cx, dt_node_t *s);

/* Whether expression n reads curthread, itself or through an inline
 * (curpsinfo): the pointers of such an expression are the kernel's. */
#define DT_CG_INLINES_MAX	64	/* inlines within inlines followed */
static bool reads_curthread(const dt_node_t *n, int depth)
{
	if (n == NULL || depth > DT_CG_INLINES_MAX)
		return false;
	if (n->kind == DT_N_IDENT && n->ident != NULL) {
		if (n->ident->kind == DT_IK_BUILTIN)	/* and `name */
			return n->ident->id == DT_BV_CURTHREAD ||
			       n->ident->id == DT_BV_KVAR;
		if (n->ident->kind == DT_IK_INLINE)
			return reads_curthread(n->ident->expr, depth + 1);
	}
	if (reads_curthread(n->l, depth) || reads_curthread(n->r, depth) ||
	    reads_curthread(n->cond, depth))
		return true;
	for (const dt_node_t *a = n->args; a != NULL; a = a->next)
		if (reads_curthread(a, depth))
			return true;
	return false;
}

/* Pointers are read as the kernel's in an expression that reads
 * curthread, whatever the clause's probes: its previous reading is
 * returned, for kernel_reads_end(). */
static bool kernel_reads_begin(dt_cg_t *cx, const dt_node_t *e)
{
	bool was = cx->kernel_deref;

	if (!was && reads_curthread(e, 0))
		cx->kernel_deref = true;
	return was;
}

static void kernel_reads_end(dt_cg_t *cx, bool was)
{
	cx->kernel_deref = was;
}

static void cg_expr_stmt(dt_cg_t *cx, dt_node_t *e)
{
	bool was = kernel_reads_begin(cx, e);

	if (is_action(e))
		dt_cg_action(cx, e);
	else if (is_agg_assign(e))
		dt_cg_agg_assign(cx, e);
	else
		dt_regs_give(cx, dt_cg_expr(cx, e));
	kernel_reads_end(cx, was);
}

/* Branch to label unless cond holds (when false). */
static void cg_cond(dt_cg_t *cx, dt_node_t *cond, int label)
{
	bool was = kernel_reads_begin(cx, cond);

	dt_cg_branch(cx, cond, false, label);
	kernel_reads_end(cx, was);
}

static void cg_stmt(dt_cg_t *cx, dt_node_t *s)
{
	cx->stmt++;
	cx->ntemps = 0;
	switch (s->kind) {
	case DT_N_EXPR_STMT:
		cg_expr_stmt(cx, s->l);
		break;
	case DT_N_IF: {
		int other = dt_as_label(cx->as), done = dt_as_label(cx->as);
		cg_cond(cx, s->cond, other);
		cg_stmts(cx, s->l);
		dt_as_jump(cx->as, BPF_JA, 0, 0, done);
		dt_as_place(cx->as, other);
		cg_stmts(cx, s->r);
		dt_as_place(cx->as, done);
		break;
	}
	case DT_N_BLOCK:
		cg_stmts(cx, s->l);
		break;
	default:
		dt_cg_ice(cx, "statement kind");
	}
	if (cx->rs.n != 0)
		dt_cg_ice(cx, "registers left taken after a statement");
}

static void cg_stmts(dt_cg_t *cx, dt_node_t *s)
{
	for (; s != NULL; s = s->next)
		cg_stmt(cx, s);
}

/*
 * Waking the consumer for every record costs more than writing it (about a
 * microsecond a firing).  So a record wakes the consumer only when it must
 * act at once (exit()) or when the buffer is half full; otherwise the
 * consumer finds it at its next poll, within one switch period.  The flags
 * are staged in spill slot 0, free at this point of the clause.
 */
static void cg_output_flags(dt_cg_t *cx)
{
	bool urgent = false;
	int done = dt_as_label(cx->as);

	for (int i = 0; i < cx->nacts; i++)
		urgent |= cx->acts[i].kind == DT_ACT_EXIT;
	if (urgent) {
		EMIT(DT_STORE_IMM(BPF_DW, DT_FP, DT_FRAME_SPILL(0),
				  BPF_RB_FORCE_WAKEUP));
		return;
	}
	EMIT(DT_STORE_IMM(BPF_DW, DT_FP, DT_FRAME_SPILL(0), BPF_RB_NO_WAKEUP));
	dt_as_load_map(cx->as, DT_R1, dt_cg_map(cx->st, "output",
		BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)cx->dtp->opt.bufsize));
	EMIT(DT_MOV64_IMM(DT_R2, BPF_RB_AVAIL_DATA));
	EMIT(DT_CALL_HELPER(BPF_FUNC_ringbuf_query));
	dt_as_jump(cx->as, BPF_JLT, DT_R0, (int32_t)(cx->dtp->opt.bufsize / 2),
		   done);
	EMIT(DT_STORE_IMM(BPF_DW, DT_FP, DT_FRAME_SPILL(0),
			  BPF_RB_FORCE_WAKEUP));
	dt_as_place(cx->as, done);
}

/*
 * -x bufpolicy=fill: a firing whose predicate holds takes its record's
 * room (and the ring buffer's 8-byte header) from DT_STATE_FILL_ROOM,
 * which the consumer sets to the buffer's size less the room END's
 * records need (dt_consume_buf.c), before its statements run.  One that
 * finds too little does not run: the room stays short, the buffer is
 * filled, the consumer ends tracing, and no clause but END's runs any
 * more, as in DTrace (which reserves a record's room before its actions).
 * END's records are not counted: their room was kept.  The room is only
 * known at the clause's end: cg_fill_room() writes it into the two
 * instructions that use it.
 */
static void cg_fill_reserve(dt_cg_t *cx, int skip)
{
	int take = dt_as_label(cx->as);

	EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(pub.prid)));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, DT_PRID_END, take);
	EMIT(DT_STORE_IMM(BPF_W, DT_R9, (int16_t)cx->st->off_scratch,
			  DT_STATE_FILL_ROOM));
	dt_as_load_map(cx->as, DT_R1, dt_cg_map(cx->st, "state",
		BPF_MAP_TYPE_ARRAY, 4, 8, DT_STATE_NSLOTS));
	dt_cg_mst_ptr(cx, DT_R2, cx->st->off_scratch);
	EMIT(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, skip);
	cx->fill_insn[0] = cx->as->ninsns;
	EMIT(DT_MOV64_IMM(DT_R1, 0));		/* -room */
	EMIT(DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, DT_R0, DT_R1, 0,
		     BPF_ADD | BPF_FETCH));
	cx->fill_insn[1] = cx->as->ninsns;
	dt_as_jump(cx->as, BPF_JSLT, DT_R1, 0, skip);	/* room */
	dt_as_place(cx->as, take);
}

static void cg_fill_room(dt_cg_t *cx)
{
	int32_t room = (int32_t)dt_rec_ring_room(cx->recsize);

	if (cx->as->insns == NULL || cx->as->err != 0)
		return;
	cx->as->insns[cx->fill_insn[0]].imm = -room;
	cx->as->insns[cx->fill_insn[1]].imm = room;
}

/* Write the record: header, then ringbuf_output of header + data. */
static void cg_output(dt_cg_t *cx)
{
	uint32_t rec = cx->st->off_rec;
	int ok = dt_as_label(cx->as);

	EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(pub.clause)));
	EMIT(DT_STORE(BPF_W, DT_R9, (int16_t)(rec + offsetof(dt_rechdr_t,
							    clause)), DT_R0));
	EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(pub.prid)));
	EMIT(DT_STORE(BPF_W, DT_R9, (int16_t)(rec + offsetof(dt_rechdr_t,
							    prid)), DT_R0));
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_smp_processor_id));
	EMIT(DT_STORE(BPF_W, DT_R9, (int16_t)(rec + offsetof(dt_rechdr_t,
							    cpu)), DT_R0));
	if (!cx->speculates)	/* else set by speculate() */
		EMIT(DT_STORE_IMM(BPF_W, DT_R9,
				  (int16_t)(rec + offsetof(dt_rechdr_t, spec)),
				  0));
	cg_output_flags(cx);
	dt_as_load_map(cx->as, DT_R1, dt_cg_map(cx->st, "output",
		BPF_MAP_TYPE_RINGBUF, 0, 0, (uint32_t)cx->dtp->opt.bufsize));
	dt_cg_mst_ptr(cx, DT_R2, rec);
	EMIT(DT_MOV64_IMM(DT_R3, (int32_t)(sizeof(dt_rechdr_t) +
					   align8(cx->recsize))));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_FP, DT_FRAME_SPILL(0)));
	EMIT(DT_CALL_HELPER(BPF_FUNC_ringbuf_output));
	dt_as_jump(cx->as, BPF_JSGE, DT_R0, 0, ok);
	dt_cg_count_drop(cx, offsetof(dt_cpuinfo_t, buf_drops));
	dt_as_place(cx->as, ok);
	dt_cg_spec_after_output(cx);
}

static void cg_clause(dt_cg_t *cx, const dt_clause_ast_t *c, bool record)
{
	int ret0 = cx->lbl_end;

	/* prologue */
	EMIT(DT_STORE(BPF_DW, DT_FP, DT_FRAME_CTX, DT_R1));
	EMIT(DT_MOV64_REG(DT_R9, DT_R2));
	dt_regs_prologue(cx);
	dt_cg_globals_start(cx, c);
	dt_cg_spec_clause_start(cx);
	if (cx->actmask) {
		dt_cg_rec_alloc(cx, 8);
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(cx->st->off_rec +
			sizeof(dt_rechdr_t)), 0));
	}
	if (c->pred != NULL)
		cg_cond(cx, c->pred, ret0);
	bool fill = record && cx->dtp->opt.bufpolicy == DT_BUFPOLICY_FILL;
	if (fill)
		cg_fill_reserve(cx, ret0);
	cg_stmts(cx, c->body);
	if (fill)
		cg_fill_room(cx);
	if (record)
		cg_output(cx);
	dt_as_place(cx->as, ret0);
	EMIT(DT_MOV64_IMM(DT_R0, 0));
	EMIT(DT_EXIT());
	dt_cg_subprograms(cx);
	dt_cg_callbacks(cx);
}

static void cx_init(dt_cg_t *cx, dt_pcb_t *pcb);

/* Whether n is an integer expression of the arguments (argN) and
 * constants that cannot fault: a predicate made of such expressions can be
 * evaluated before anything else of a firing (cg_pred_alone()). */
static bool expr_args_only(const dt_node_t *n)
{
	if (n == NULL || n->type == NULL || !dt_type_is_integer(n->type))
		return false;
	if (n->is_const)
		return true;
	switch (n->kind) {
	case DT_N_INT:
		return true;
	case DT_N_IDENT:
		return n->ident != NULL && n->ident->kind == DT_IK_BUILTIN &&
		       n->ident->id == DT_BV_ARG;
	case DT_N_UNARY:
		return (n->op == DT_OP_NEG || n->op == DT_OP_PLUS ||
			n->op == DT_OP_BITNOT || n->op == DT_OP_LNOT) &&
		       expr_args_only(n->l);
	case DT_N_CAST:
		return expr_args_only(n->l);
	case DT_N_TERNARY:
		return expr_args_only(n->cond) && expr_args_only(n->l) &&
		       expr_args_only(n->r);
	case DT_N_BINARY:
		break;
	default:
		return false;
	}
	switch (n->op) {
	case DT_OP_DIV: case DT_OP_MOD:	/* faults on a zero divisor */
		if (!n->r->is_const || n->r->ival == 0)
			return false;
		break;
	case DT_OP_ADD: case DT_OP_SUB: case DT_OP_MUL: case DT_OP_SHL:
	case DT_OP_SHR: case DT_OP_BAND: case DT_OP_BOR: case DT_OP_BXOR:
	case DT_OP_LAND: case DT_OP_LOR: case DT_OP_LXOR: case DT_OP_EQ:
	case DT_OP_NE: case DT_OP_LT: case DT_OP_LE: case DT_OP_GT:
	case DT_OP_GE:
		break;
	default:
		return false;
	}
	return expr_args_only(n->l) && expr_args_only(n->r);
}

/*
 * The predicate of c alone, into cc->pred, when it reads only arguments:
 * pred(ctx, mst) returns non-zero when it holds.  Only argv[] of mst is
 * read, so the program may pass a copy of the arguments on its stack and
 * leave a firing whose predicates all fail before it touches the mstate
 * (dt_prog_prefilter.c, emit_prefilter()).
 */
static void cg_pred_alone(dt_pcb_t *pcb, dt_compiled_clause_t *cc,
			  const dt_clause_ast_t *c)
{
	dt_cg_t ccx, *cx = &ccx;

	if (c->pred == NULL || !expr_args_only(c->pred))
		return;
	cx_init(cx, pcb);
	cx->cc = cc;
	cx->as = &cc->pred;
	dt_as_init(cx->as);
	cx->lbl_end = dt_as_label(cx->as);
	EMIT(DT_STORE(BPF_DW, DT_FP, DT_FRAME_CTX, DT_R1));
	EMIT(DT_MOV64_REG(DT_R9, DT_R2));
	dt_regs_prologue(cx);
	uint32_t args_read = cc->args_read;
	cc->args_read = 0;
	int fails = dt_as_label(cx->as);
	dt_cg_branch(cx, c->pred, false, fails);
	cc->pred_args = cc->args_read;
	cc->args_read |= args_read;
	/* Each return sets r0 next to its exit, where a prefilter run
	 * inline finds it (dt_prog_prefilter.c); a fault, which cannot happen
	 * here, would run the firing in full. */
	dt_as_place(cx->as, cx->lbl_end);
	EMIT(DT_MOV64_IMM(DT_R0, 1));
	EMIT(DT_EXIT());
	dt_as_place(cx->as, fails);
	EMIT(DT_MOV64_IMM(DT_R0, 0));
	EMIT(DT_EXIT());
	if (dt_as_finish(cx->as) != 0 || cx->as->err != 0)
		dt_as_fini(cx->as);	/* left without: the program asks */
}

/* What a compiled clause owns besides its code and itself (which the
 * session frees): its action and record descriptors and strings, and its
 * predicate alone. */
static void free_clause_descs(dt_compiled_clause_t *cc)
{
	for (int i = 0; i < cc->nacts; i++) {
		free((char *)cc->acts[i].fmt);
		free(cc->acts[i].recs);
		free(cc->acts[i].aggs);
	}
	free(cc->acts);
	free((char *)cc->desc);
	dt_as_fini(&cc->pred);
	cc->acts = NULL;
	cc->nacts = 0;
	cc->desc = NULL;
}

static void check_init(dt_cg_t *cx, dt_check_t *ck)
{
	dt_check_init(ck, cx->pcb, &cx->st->idents, cx->st->strsize - 1,
		      cx->st->rec_max);
}

/* Check clause c with the checker, then take what it found and place the
 * variables it declared. */
static void check_clause(dt_cg_t *cx, const dt_clause_ast_t *c)
{
	dt_check_t ck;

	check_init(cx, &ck);
	ck.probes = cx->probes;
	ck.nprobes = cx->nprobes;
	ck.probe_ctypes = dt_probe_ctypes;
	ck.in_clause = true;
	dt_check_clause(&ck, c);
	/* a clause records when it has an action that records, or nothing
	 * at all (the default action); one that only assigns variables or
	 * aggregates prints nothing, as in DTrace */
	cx->cc->record = c->body == NULL || ck.records;
	cx->actmask = ck.actmask;
	cx->destructive = ck.destructive;
	cx->speculates = ck.speculates;
	dt_var_place_new(cx);
}

static void cx_init(dt_cg_t *cx, dt_pcb_t *pcb)
{
	memset(cx, 0, sizeof(*cx));
	cx->pcb = pcb;
	cx->dtp = pcb->dtp;
	cx->st = dt_cg_state(pcb->dtp);
	cx->lbl_strcmp = -1;
	for (int i = 0; i < DT_CG_NSCANS; i++)
		cx->lbl_cb[i] = -1;
	dt_regs_init(&cx->rs);
}

dt_compiled_clause_t *dt_cg_clause(dt_pcb_t *pcb, const dt_clause_ast_t *c,
				   dtrace_probe_t **probes, int nprobes)
{
	dt_cg_t cx;
	dt_compiled_clause_t *cc = dt_zalloc(sizeof(*cc));

	cx_init(&cx, pcb);
	/* A compile error longjmps out of here: the clause under
	 * construction stays reachable until the next call or dt_cg_fini. */
	if (cx.st->pending != NULL)
		dt_cg_clause_free(cx.st->pending);
	cx.st->pending = cc;
	if (cx.st->rec_max < 1024)
		dt_pcb_error(pcb, D_STR_TOOBIG, c->line, "strsize %u is too "
			     "large for the machine state", cx.st->strsize - 1);
	cx.probes = probes;
	cx.nprobes = nprobes;
	cx.kernel_deref = nprobes > 0;
	for (int i = 0; i < nprobes; i++) {
		cx.kernel_deref &= (probes[i]->attr & DTRACE_PROBE_KERNEL) != 0;
		cx.uregs_task |= (probes[i]->attr & DTRACE_PROBE_IN_KERNEL) != 0;
	}
	cx.clause_id = pcb->dtp->nclauses;
	cx.as = &cc->code;
	dt_as_init(cx.as);
	cx.lbl_end = dt_as_label(cx.as);

	cx.cc = cc;
	check_clause(&cx, c);
	cg_clause(&cx, c, cc->record);
	if (cx.st->off_this + cx.st->this_size > DT_MSTATE_MAX)
		dt_pcb_error(pcb, D_STACK_SIZE, c->line, "this-> variables "
			     "take more room than the machine state has");
	if (dt_as_finish(cx.as) == -E2BIG)
		dt_pcb_error(pcb, D_CLAUSE_SIZE, c->line, "clause too large "
			     "for BPF (%s: %u instructions, a jump reaches "
			     "%d); split it into several clauses",
			     cx.as->errmsg, cx.as->ninsns, INT16_MAX);
	if (cx.as->err != 0)
		dt_pcb_error(pcb, D_NOMEM, c->line, "cannot assemble the "
			     "clause: %s", cx.as->errmsg);
	cg_pred_alone(pcb, cc, c);
	cc->id = cx.clause_id;
	cc->desc = c->pdescs ? dt_strdup(c->pdescs->text) : dt_strdup("");
	cc->line = c->line;
	cc->nacts = cx.nacts;
	cc->acts = cx.acts;
	cc->recsize = align8(cx.recsize);
	cc->actmask = cx.actmask;
	cc->udepth = cx.udepth;
	cc->destructive = cx.destructive;
	cx.st->pending = NULL;
	return cc;
}

void dt_cg_clause_free(dt_compiled_clause_t *cc)
{
	dt_as_fini(&cc->code);
	free_clause_descs(cc);
	free(cc);
}

/* ---- declarations ---- */

void dt_cg_declare(dt_pcb_t *pcb, const dt_program_ast_t *prog)
{
	dt_cg_t cx;
	dt_check_t ck;

	cx_init(&cx, pcb);
	check_init(&cx, &ck);
	dt_check_declare(&ck, prog);
	dt_var_place_new(&cx);
}

/* ---- session ---- */

int dt_cg_check_space(dtrace_hdl_t *dtp)
{
	/* DTrace's minimum: room for one record, whatever the clauses
	 * record (a bufsize of 0 included) */
	bool fits = dtp->opt.bufsize >= sizeof(dt_rechdr_t);

	for (int i = 0; i < dtp->nclauses; i++) {
		const dt_compiled_clause_t *cc = dtp->clauses[i];
		if (cc != NULL && cc->record &&
		    sizeof(dt_rechdr_t) + cc->recsize > dtp->opt.bufsize)
			fits = false;
	}
	for (int i = 0; i < dtp->naggs; i++)
		if ((uint64_t)dtp->aggs[i]->keysize + dtp->aggs[i]->valsize >
		    dtp->opt.aggsize)
			fits = false;
	if (fits)
		return 0;
	dt_set_error(dtp, "could not enable tracing: Enabling exceeds size "
		     "of buffer");
	return -1;
}

int dt_cg_check_destructive(dtrace_hdl_t *dtp)
{
	for (int i = 0; i < dtp->nclauses && !dtp->opt.destructive; i++)
		if (dtp->clauses[i] != NULL && dtp->clauses[i]->destructive) {
			dt_set_error(dtp, "could not enable tracing: "
				     "Destructive actions not allowed");
			return -1;
		}
	return 0;
}

uint32_t dt_cg_mstate_size(dtrace_hdl_t *dtp)
{
	dt_cg_state_t *st = dt_cg_state(dtp);
	return align8(st->off_this + st->this_size);
}

/* Sizes known only once every clause is compiled. */
static void final_sizes(dt_cg_state_t *st, dt_cg_map_t *m)
{
	dtrace_map_t *pm = &m->pm;

	if (strcmp(pm->name, "globals") == 0)
		pm->vsize = st->globals_size ? st->globals_size : 8;
	else if (strcmp(pm->name, "strtab") == 0)
		pm->vsize = align8(st->strtab_len + st->strroom);
	else if (strcmp(pm->name, "aggzero") == 0) {
		pm->vsize = 8;
		for (int i = 0; i < st->dtp->naggs; i++)
			if (st->dtp->aggs[i]->valsize > pm->vsize)
				pm->vsize = st->dtp->aggs[i]->valsize;
		if (st->aggslots_max > pm->vsize)
			pm->vsize = st->aggslots_max;
	} else if (strcmp(pm->name, "probedesc") == 0) {
		pm->nentries = st->dtp->nprobes + 1;
	} else if (strncmp(pm->name, "aggr_", 5) == 0 && pm->fd < 0) {
		/* an array by PRID (dt_rec.h): the probes made so far, as
		 * many as the arrays' room left takes */
		uint64_t n = (uint64_t)st->dtp->nprobes + 1;
		uint64_t room = st->byprid_bytes < DT_AGG_BYPRID_MAX ?
				DT_AGG_BYPRID_MAX - st->byprid_bytes : 0;
		if (n * pm->vsize > room)
			n = room / pm->vsize;
		pm->nentries = n ? (uint32_t)n : 1;
		st->byprid_bytes += (uint64_t)pm->nentries * pm->vsize;
	}
}

static int write_strtab(dt_cg_state_t *st, dtrace_map_t *pm)
{
	char *buf = dt_zalloc(pm->vsize);
	uint32_t key = 0;

	memcpy(buf, st->strtab, st->strtab_len);
	int err = bpf_map_update_elem(pm->fd, &key, buf, BPF_ANY);
	free(buf);
	if (err == 0)
		err = bpf_map_freeze(pm->fd);
	return err;
}

int dt_cg_maps_init(dtrace_hdl_t *dtp)
{
	dt_cg_state_t *st = dtp->cg;

	if (st == NULL)
		return 0;
	for (dt_cg_map_t *m = st->maps; m != NULL; m = m->next) {
		dtrace_map_t *pm = &m->pm;
		final_sizes(st, m);
		dtrace_map_t *real = dt_bpf_map_find(dtp, pm->name);
		if (real == NULL)
			real = dt_bpf_map(dtp, pm->name, pm->type, pm->ksize,
					  pm->vsize, pm->nentries);
		if (real == NULL)
			return -1;
		pm->fd = real->fd;
		pm->ksize = real->ksize;
		pm->vsize = real->vsize;
		pm->nentries = real->nentries;
		if (strcmp(pm->name, "strtab") == 0 && write_strtab(st, pm)) {
			dt_set_error(dtp, "cannot write the string table: %s",
				     strerror(errno));
			return -1;
		}
	}
	return 0;
}

void dt_cg_fini(dtrace_hdl_t *dtp)
{
	dt_cg_state_t *st = dtp->cg;

	for (int i = 0; i < dtp->nclauses; i++)
		free_clause_descs(dtp->clauses[i]);
	if (st == NULL)
		return;
	if (st->pending != NULL)
		dt_cg_clause_free(st->pending);
	dt_idtab_fini(&st->idents);
	dt_pd_fini(dtp);
	while (st->maps != NULL) {
		dt_cg_map_t *m = st->maps;
		st->maps = m->next;
		free(m->pm.name);
		free(m);
	}
	free(st->strtab);
	free(st);
	dtp->cg = NULL;
}
