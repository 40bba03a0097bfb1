/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_impl.h: private state of the code generator.
 *
 * Two levels of state:
 *   dt_cg_state_t (dtp->cg)	the session: variables, aggregations, the
 *				string table, the maps the code refers to and
 *				the layout of the mstate's code generator area.
 *   dt_cg_t			one clause being compiled: its emitter,
 *				registers, record layout and actions.
 *
 * Register conventions inside a clause function (see dt_cg.c for the
 * stack frame):
 *   r9		the mstate (dt_mstate_t *), for the whole clause
 *   r6..r8	the value pool of dt_regs.c: expression values live there
 *		(callee-saved, so they survive helper and subprogram calls)
 *   r0..r5	scratch inside one emitted construct only; never hold a value
 *		across the evaluation of a subexpression
 *
 * Value representation in a pool register, after an expression:
 *   integer	the value, sign- or zero-extended to 64 bits per its type
 *   pointer	the address (user memory)
 *   string	a pointer to strsize readable bytes in a map value (string
 *		table, mstate temporary, variable storage), NUL-terminated
 *   struct, union, array	the user address of the object
 */
#ifndef DT_CG_IMPL_H
#define DT_CG_IMPL_H

#include <stddef.h>
#include <string.h>
#include "dt_cg.h"
#include "dt_check.h"
#include "dt_ident.h"
#include "dt_runtime.h"
#include "dt_bpf.h"

/* dt_regs.c: the value register pool with LIFO spilling. */
#define DT_REGS_NPOOL	3	/* r6, r7, r8 */
#define DT_REGS_NSPILL	8	/* spill slots in the frame */
#define DT_REGS_MAXLIVE	32

typedef struct dt_regs {
	struct {
		int reg;
		int slot;	/* spill slot while spilled, else -1 */
		int restores;	/* entry spilled to make room, or -1 */
	} ent[DT_REGS_MAXLIVE];
	int n;
	int nslots;		/* spill slots in use (LIFO) */
	bool busy[11];
} dt_regs_t;

struct dt_cg;
void dt_regs_init(dt_regs_t *rs);
void dt_regs_prologue(struct dt_cg *cx);
int dt_regs_take(struct dt_cg *cx);
void dt_regs_give(struct dt_cg *cx, int reg);
/* Whether giving reg back (the last taken) reloads the value it held
 * before it was lent out: code after the give then finds another value
 * in reg, and a jump emitted before the give skips the reload. */
bool dt_regs_give_reloads(const struct dt_cg *cx, int reg);
/* Internal error unless reg holds a live (unspilled) value. */
void dt_regs_check(struct dt_cg *cx, int reg);

/*
 * The clause's BPF stack frame (offsets from r10):
 *   -8			ctx (struct pt_regs *), saved at entry
 *   -16 - 8*i		spill slot i, i < DT_REGS_NSPILL
 *   -144 .. -73	string scan context (DT_FRAME_LOOP)
 *   -152		the globals' value, 0 until looked up (dt_cg_var.c)
 * Nothing else lives on the stack: helper arguments (map keys and values,
 * probe_read destinations) are staged in the mstate area, so spills and
 * staging can never collide.
 */
#define DT_FRAME_CTX		(-8)
#define DT_FRAME_SPILL(i)	(-16 - 8 * (i))
/* The context of a string scan (dt_cg_subr.c): DT_LOOP_NSLOTS u64 slots
 * at fp-144 .. fp-73, written right before the call. */
#define DT_LOOP_NSLOTS		9
#define DT_FRAME_LOOP		(-144)
#define DT_FRAME_LOOP_SLOT(i)	(DT_FRAME_LOOP + 8 * (i))
#define DT_FRAME_GLOBALS	(-152)

/* A map the generated code refers to.  Code is emitted before the maps
 * can be sized (globals and the string table grow with every clause), so
 * emitters refer to this placeholder; dt_cg_maps_init() creates the real
 * map and copies its fd into the placeholder, which the loader reads. */
typedef struct dt_cg_map {
	dtrace_map_t pm;
	struct dt_cg_map *next;
} dt_cg_map_t;

/* Bytes [lo, hi) of the mstate; lo == hi: none. */
typedef struct dt_cg_span {
	uint32_t lo, hi;
} dt_cg_span_t;

/* Make span s cover size bytes at off too (and what lies between). */
static inline void dt_cg_span_add(dt_cg_span_t *s, uint32_t off,
				  uint32_t size)
{
	if (s->lo == s->hi || off < s->lo)
		s->lo = off;
	if (off + size > s->hi)
		s->hi = off + size;
}

struct dt_cg_state {
	dtrace_hdl_t *dtp;
	uint32_t strsize;	/* a string's bytes with its NUL: -x strsize
				   (characters, as in DTrace) + 1 */
	uint32_t strroom;	/* strsize rounded up to 8: what a string
				   takes in buffers, keys and variables */
	/* The mstate area, as absolute offsets in the mstate value. */
	uint32_t off_aggmst;	/* DT_CG_AGGMST bytes: keyless aggregations */
	uint32_t aggmst_used;	/* of them */
	uint32_t aggslots_max;	/* the largest value of an aggregation hash
				   of CPU slots: aggzero's size at least */
	uint64_t byprid_bytes;	/* the arrays by PRID made, together
				   (DT_AGG_BYPRID_MAX at most) */
	uint32_t aggmst_tail;	/* keyless aggregations' bytes after this->
				   variables, at most DT_CG_AGGMST_TAIL */
	uint32_t off_scratch;	/* 64 bytes: helper keys, read staging */
	uint32_t off_rec;	/* record: dt_rechdr_t + data */
	uint32_t rec_max;	/* data bytes */
	uint32_t off_key;	/* tuple key being built */
	uint32_t key_max;
	uint32_t off_aggval;	/* zeroed initial aggregation value */
	uint32_t aggval_max;
	uint32_t off_cmp;	/* two strsize buffers for comparisons */
	uint32_t off_strtok;	/* strtok()'s string */
	uint32_t off_temps;	/* string temporaries, 2 * strsize each */
	uint32_t ntemps;
	uint32_t off_this;	/* this-> variables */
	uint32_t this_size;
	dt_idtab_t idents;	/* globals, self, this, aggs, inlines: the
				   checker declares them */
	dt_ident_t *placed;	/* the newest of idents with its storage
				   (dt_var_place_new()) */
	uint32_t globals_size;
	char *strtab;		/* literals, NUL-terminated, "" at 0 */
	uint32_t strtab_len, strtab_cap;
	dt_cg_map_t *maps;
	dt_compiled_clause_t *pending;	/* being compiled */
	int uret_off[5];	/* kernel offsets for ustack() (dt_cg_act.c);
				   0: not looked up yet, -1: unknown */
	dt_cg_span_t xlated;	/* the clause-local slots of the translated
				   structs placed so far, which the pointers
				   xlate <T *> yields reach until the firing
				   ends (dt_cg_xlate.c) */
};
typedef struct dt_cg_state dt_cg_state_t;

#define DT_CG_NSCANS	10	/* kinds of string scans (dt_cg_subr.c) */
/* The comparison buffers take at least this many bytes, whatever strsize:
 * lltostr() writes its digits there backwards (64 binary digits, a
 * prefix and a NUL fit). */
#define DT_CG_CMP_MIN	72

typedef struct dt_cg {
	dt_pcb_t *pcb;
	dtrace_hdl_t *dtp;
	dt_cg_state_t *st;
	dt_as_t *as;
	dt_compiled_clause_t *cc;	/* being built, NULL in declarations */
	dtrace_probe_t **probes;
	int nprobes;
	int clause_id;
	dt_regs_t rs;
	/* record layout */
	uint32_t recsize;	/* data bytes used so far */
	bool actmask;		/* data starts with the mask of run actions */
	dt_actdesc_t *acts;
	int nacts, acts_cap;
	int stmt;		/* 1-based statement being compiled */
	uint32_t ntemps;	/* string temporaries taken in this statement */
	uint32_t temps_kept;	/* the first ones, kept for copyin() results */
	/* The D scratch memory that the clause's alloca() and copyin()
	 * calls took so far, as mstate offsets: what a pointer into it may
	 * reach at this point of the clause (with st->xlated).  Known at
	 * compile time: D has no loops, so what was emitted before ran
	 * before (an alloca() in one branch of an if counts after the if
	 * too: the memory is still the clause's own).  A pointer kept from
	 * another clause or firing reaches only what this clause took, as
	 * DTrace resets its scratch memory for each clause. */
	dt_cg_span_t scratch;
	bool destructive;
	bool kernel_deref;	/* every probe of the clause is a kernel
				   probe: pointers are kernel addresses */
	bool uregs_task;	/* a probe of the clause fires in the
				   kernel: user registers are the task's */
	bool speculates;	/* the clause calls speculate() (checker) */
	uint32_t fill_insn[2];	/* bufpolicy=fill: the instructions that
				   hold the record's room, set at its end */
	int key_level;		/* nesting of tuple keys being built */
	int lbl_strcmp;		/* subprograms, -1 until first used */
	int lbl_cb[DT_CG_NSCANS];	/* scan steps (dt_cg_subr.c) */
	int lbl_end;		/* the record output and return 0 */
	bool udepth;		/* records ustackdepth */
	bool globals_ready;	/* the frame holds the globals' value from
				   the clause's start (dt_cg_var.c) */
	uint32_t usample_at;	/* record offset + 1 of the clause's copy of
				   the user stack, which every ustack() of an
				   unconditional clause shares; 0: none */
} dt_cg_t;

static inline void dt_cg_emit(dt_cg_t *cx, struct bpf_insn insn)
{
	dt_as_emit(cx->as, insn);
}

#define DT_CG_MSTATE_SIZE	32768	/* per-CPU map values stop at 32 KB */
#define DT_MSTATE_MAX		DT_CG_MSTATE_SIZE
#define DT_MST_OFF(f)	((int16_t)offsetof(dt_mstate_t, f))
#define DT_MST_AREA	((uint32_t)offsetof(dt_mstate_t, cg_area))
#define DT_CG_AGGMST	128	/* bytes of keyless aggregations' values */
#define DT_CG_AGGMST_TAIL 2048	/* and after this-> variables: half the
				   room kept for them */

/* dt_cg_spec.c */
int dt_cg_speculation(dt_cg_t *cx);
void dt_cg_speculate(dt_cg_t *cx, dt_node_t *id);
void dt_cg_spec_clause_start(dt_cg_t *cx);
/* Emit: the fault of commit() or discard() of the id at mstate offset off
 * when it names no speculation. */
void dt_cg_spec_id_check(dt_cg_t *cx, uint32_t off);
void dt_cg_spec_after_output(dt_cg_t *cx);

/* dt_cg_net.c */
int dt_cg_byteorder(dt_cg_t *cx, dt_node_t *n, int bits);
int dt_cg_inet_ntoa(dt_cg_t *cx, dt_node_t *n);
int dt_cg_inet_ntop(dt_cg_t *cx, dt_node_t *n);
int dt_cg_inet_ntoa6(dt_cg_t *cx, dt_node_t *n);
int dt_cg_link_ntop(dt_cg_t *cx, dt_node_t *n);

/* dt_cg.c */
dt_cg_state_t *dt_cg_state(dtrace_hdl_t *dtp);
dtrace_map_t *dt_cg_map(dt_cg_state_t *st, const char *name,
			enum bpf_map_type type, uint32_t ksize, uint32_t vsize,
			uint32_t nentries);
_Noreturn void dt_cg_ice(dt_cg_t *cx, const char *what);
void dt_cg_fault(dt_cg_t *cx, dt_fault_t fault, int addr_reg);
void dt_cg_fault_if(dt_cg_t *cx, int op, int reg, int32_t imm,
		    dt_fault_t fault, int addr_reg);
/* reg = r9 + off (a pointer into the mstate) */
void dt_cg_mst_ptr(dt_cg_t *cx, int reg, uint32_t off);
/* Look up key 0 of an ARRAY map into r0; jumps to fail if NULL. */
void dt_cg_array_value(dt_cg_t *cx, dtrace_map_t *map, int fail);
void dt_cg_globals_start(dt_cg_t *cx, const dt_clause_ast_t *c);
/* Add 1 to a dt_cpuinfo_t counter (uses r0-r5). */
void dt_cg_count_drop(dt_cg_t *cx, uint32_t field_off);
/* Offset of member in struct sou of the kernel's BTF, or -1. */
int32_t dt_cg_btf_offset(dt_cg_state_t *st, const char *sou,
			 const char *member);
uint32_t dt_cg_temp(dt_cg_t *cx);	/* offset of a new string temp */
/* Emit: r0 = bpf_get_stack(ctx, mst + off, frames * 8, flags): the bytes
 * of kernel PCs written, the rest of the buffer zeroed. */
void dt_cg_get_stack(dt_cg_t *cx, uint32_t off, uint32_t frames,
		     uint64_t flags);
/* Emit: r0 = read r2 bytes from r3 to r1 (a string: up to r2 with the
 * NUL), from the mstate when r3 points there (copyin), else from user
 * memory.  Uses r0-r5. */
void dt_cg_probe_read(dt_cg_t *cx, bool str);
/* Emit: reg = the user registers (a pt_regs): the context, or for a
 * clause of probes that fire in the kernel, the current task's saved
 * ones.  Uses r0-r5. */
void dt_cg_uregs_ptr(dt_cg_t *cx, int reg);
/* Emit: d = s sign-extended from its low bits (8, 16, 32). */
void dt_cg_movsx(dt_cg_t *cx, int d, int s, int bits);
/* Emit: a = a / r0, or a % r0 when mod, signed (r0 not 0).  Uses r1-r3. */
void dt_cg_sdiv(dt_cg_t *cx, int a, bool mod);
/* The same, reading user memory whatever the clause's probes (copyinstr). */
void dt_cg_probe_read_user(dt_cg_t *cx, bool str);
/* Emit: d = addr - r9 as a number (uses r5; d may be addr) */
void dt_cg_mst_offset(dt_cg_t *cx, int d, int addr);
/* Emit: the string that a producer wrote in the temporary at mstate
 * offset t, up to len bytes with its NUL, cut at strsize - 1 characters
 * when len is more than strsize. */
void dt_cg_str_cut(dt_cg_t *cx, uint32_t t, uint32_t len);
/* Emit: reg = a new temporary holding the text that r3 points to in the
 * mstate (at most max bytes with its NUL, built in a buffer of its own
 * size), cut at strsize - 1 characters.  Uses r0-r5. */
void dt_cg_text_temp(dt_cg_t *cx, int reg, uint32_t max);
/* Emit: fault with invalid address (0x0) when the string in reg is NULL */
void dt_cg_str_notnull(dt_cg_t *cx, int reg);
/* reg = the length of the string at src (reg and src may be the same);
 * borrows the comparison buffer. */
void dt_cg_strlen(dt_cg_t *cx, int reg, int src);
/* Copy the string at src into the machine state at offset dst (strsize
 * bytes, NUL terminated); reg = its length (reg and src may be the same). */
void dt_cg_str_copy(dt_cg_t *cx, int reg, int src, uint32_t dst);
/* The word at the user stack pointer (the return address, at a function's
 * entry) into the machine state at off; 0 there when it cannot be read. */
void dt_cg_user_sp_word(dt_cg_t *cx, uint32_t off);
uint32_t dt_cg_rec_alloc(dt_cg_t *cx, uint32_t size);
dt_actdesc_t *dt_cg_act_new(dt_cg_t *cx, dt_actkind_t kind, int line);
dt_recdesc_t *dt_cg_rec_new(dt_cg_t *cx, dt_actdesc_t *ad);

/* dt_cg_var.c: the session's variables and aggregations */
/* Give the identifiers the checker declared since the last call their
 * storage, in the order of their declaration. */
void dt_var_place_new(dt_cg_t *cx);
uint32_t dt_var_slot_size(dt_cg_state_t *st, const dt_type_t *t);
/* Emit: a value of variable id (keys: the INDEX arguments or NULL). */
int dt_cg_var_load(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys);
/* Emit: store the value in reg (of type vt) into the variable. */
void dt_cg_var_store(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys, int reg,
		     dt_type_t *vt);
/* Emit: delete the element of map-backed variable id (a thread-local or
 * an associative array) at keys, as storing 0 does. */
void dt_cg_var_delete(dt_cg_t *cx, dt_ident_t *id, dt_node_t *keys);
/* Emit: build the tuple key of args at st->off_key; size in *ksize.
 * The first 8 bytes can hold a prefix: the thread id (self-> variables,
 * DT_KEY_TID) or a number (the aggregation's id in a shared map). */
void dt_cg_key(dt_cg_t *cx, dt_node_t *args, int64_t prefix, uint32_t ksize);
/* Key component a at mstate offset off (as dt_cg_key() lays it out);
 * returns its size. */
uint32_t dt_cg_key_part(dt_cg_t *cx, dt_node_t *a, uint32_t off);
#define DT_KEY_PLAIN	(-1)	/* prefix: none */
#define DT_KEY_TID	(-2)	/* prefix: the thread id */
				/* prefix >= 0: that number */
uint32_t dt_cg_key_size(dt_cg_state_t *st, dt_type_t **keys, int nkeys,
			bool tid);

/* Emit (dt_cg_str.c): addr, an address, becomes a pointer the verifier
 * accepts to size bytes of D scratch memory, else a fault. */
void dt_cg_scratch_ptr(dt_cg_t *cx, int addr, uint32_t size);
/* Emit (dt_cg_expr.c): reg = a pointer to lvalue n, reached through a
 * pointer, for a store: it must lie in D scratch memory. */
int dt_cg_scratch_lvalue(dt_cg_t *cx, dt_node_t *n);

/* dt_cg_sou.c: struct, union and array variables stored by value */
/* The map of zeros an absent element of such a variable reads as. */
dtrace_map_t *dt_sou_zero_map(dt_cg_state_t *st, uint32_t size);
/* Emit: reg = the address of n (dt_sou_rooted(), or reached through a
 * pointer into D scratch memory), for a write. */
int dt_sou_lvalue(dt_cg_t *cx, dt_node_t *n);
/* Emit: reg = the address of n (dt_sou_rooted()), for a read. */
int dt_sou_addr(dt_cg_t *cx, dt_node_t *n);
/* Emit: dst = the scalar of type t at addr; store v there. */
void dt_sou_load_at(dt_cg_t *cx, int dst, int addr, const dt_type_t *t);
void dt_sou_store_at(dt_cg_t *cx, int addr, int v, const dt_type_t *t);
/* The same for lvalue n, whose address addr is (its unit's, for a
 * bit-field: the field is read or written alone). */
void dt_sou_load_lvalue(dt_cg_t *cx, int dst, int addr, const dt_node_t *n);
void dt_sou_store_lvalue(dt_cg_t *cx, int addr, int v, const dt_node_t *n);
/* Emit: reg, holding the bytes of bit-field m's unit, = m's value (its
 * bits, sign-extended when its type is signed). */
void dt_cg_bitfield_value(dt_cg_t *cx, int reg, const dt_member_t *m);
/* Emit: store the low bits of v (left as it is) in bit-field m of the unit
 * at addr (BPF memory), the other bits of the unit kept: read, masked,
 * or'ed, written back; r0 and r1 are changed, addr may be r2..r5. */
void dt_cg_bitfield_store(dt_cg_t *cx, int addr, int v, const dt_member_t *m);
/* Emit: the value of n (dt_sou_rooted()): a scalar, or an address. */
int dt_sou_value(dt_cg_t *cx, dt_node_t *n);
/* Emit: assignment n to a member or element of such a variable. */
int dt_sou_assign(dt_cg_t *cx, dt_node_t *n);
/* Emit: a = a string temporary holding the characters of the char array
 * of size bytes at a, a part of such a variable. */
void dt_sou_stringof(dt_cg_t *cx, int a, uint64_t size);
/* Emit: copy the value at address v (of expression r) into lhs. */
void dt_sou_store_var(dt_cg_t *cx, dt_node_t *lhs, int v, dt_node_t *r);
/* Emit: copy the size bytes of the struct, union or array at address v
 * (the value of expression n: BPF memory when dt_sou_rooted(n), else the
 * traced memory, which faults at a bad address) to mstate offset off. */
void dt_sou_copy_to_mst(dt_cg_t *cx, uint32_t off, int v, const dt_node_t *n,
			uint32_t size);

/* dt_cg_act.c: stack(), ustack(), ufunc(), usym(), umod() and uaddr(), as
 * actions and aggregation keys (the "stack calls" of the checker: their
 * record is what the consumer formats) */
/* Kind, size and frames (arg) of the record of a stack call (as a key:
 * a user stack is a DT_RK_USTACK of PCs). */
void dt_cg_stack_desc(const dt_cg_state_t *st, const dt_node_t *call,
		      dt_recdesc_t *rd);
/* The DT_RK_USAMPLE record of a ustack() call, and the code that writes
 * it at mstate offset off. */
void dt_cg_usample_desc(const dt_cg_state_t *st, const dt_node_t *call,
			dt_recdesc_t *rd);
void dt_cg_usample(dt_cg_t *cx, const dt_recdesc_t *rd, uint32_t off);
/* Emit: an aggregation statement whose keys hold a ustack(), recorded for
 * the consumer to aggregate (v, w: the value and increment, or NULL). */
void dt_cg_agg_sample(dt_cg_t *cx, const dt_aggdesc_t *agg, dt_node_t *keys,
		      dt_node_t *v, dt_node_t *w, int line);
/* Whether aggregation agg is aggregated by the consumer. */
bool dt_cg_agg_by_consumer(const dt_aggdesc_t *agg);
/* Emit: write that record at mstate offset off. */
void dt_cg_stack(dt_cg_t *cx, dt_node_t *call, const dt_recdesc_t *rd,
		 uint32_t off);

/* dt_cg_expr.c */
int dt_cg_expr(dt_cg_t *cx, dt_node_t *n);
/* Emit: jump to label when the truth of n is when, else fall through;
 * comparisons, !, && and || as jumps, without their value. */
void dt_cg_branch(dt_cg_t *cx, dt_node_t *n, bool when, int label);
void dt_cg_convert(dt_cg_t *cx, int reg, const dt_type_t *from,
		   const dt_type_t *to);
void dt_cg_copy_str(dt_cg_t *cx, uint32_t dst_off, int src_reg);

/* dt_cg_str.c */
void dt_cg_strcmp(dt_cg_t *cx, int a, int b);	/* a = cmp result */
void dt_cg_subprograms(dt_cg_t *cx);
int dt_cg_subr(dt_cg_t *cx, dt_node_t *n);

/* dt_cg_subr.c: the scanning string subroutines */
int dt_cg_subr_more(dt_cg_t *cx, dt_node_t *n, dt_func_t f);
void dt_cg_callbacks(dt_cg_t *cx);
/* The loop context of a scan (DT_FRAME_LOOP): slot i = reg, or an
 * immediate; reg = slot i; every slot 0. */
void dt_cg_loop_slot(dt_cg_t *cx, int i, int reg);
void dt_cg_loop_slot_imm(dt_cg_t *cx, int i, int32_t v);
void dt_cg_loop_load(dt_cg_t *cx, int reg, int i);
void dt_cg_loop_init(dt_cg_t *cx);
/* Whether the kernel has bpf_loop(); the scans of d_path() need it. */
bool dt_cg_have_loop(dt_cg_t *cx);
/* Emit: the d_path() walk over the loop context, its step run up to
 * strsize times by bpf_loop(). */
void dt_cg_dpath_loop(dt_cg_t *cx);

/* dt_cg_dpath.c: d_path() */
int dt_cg_d_path(dt_cg_t *cx, dt_node_t *n);
/* The walk's step (bpf_loop()'s callback: r6 = the loop context, r7 = i) */
void dt_cg_dpath_step(dt_cg_t *cx);

/* dt_cg_agg.c */
void dt_cg_agg_assign(dt_cg_t *cx, dt_node_t *n);

/* dt_cg_act.c */
void dt_cg_action(dt_cg_t *cx, dt_node_t *call);

#endif /* DT_CG_IMPL_H */
