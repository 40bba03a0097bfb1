/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_subr.c: the string subroutines that scan their input: strchr,
 * strrchr, index, rindex, strstr, toupper, tolower, basename, dirname,
 * strtok, cleanpath, d_execargs, and substr, lltostr, progenyof (the
 * network ones: dt_cg_net.c; d_path()'s walk, whose step is here as a scan
 * kind: dt_cg_dpath.c).
 *
 * A scan is one step per byte, i = 0 .. strsize - 1, run by bpf_loop()
 * (a callback appended to the clause once per kind, which the verifier
 * checks once whatever strsize is).  Kernels without bpf_loop call a
 * subprogram that loops over the same step instead.  A scan finds its
 * operands in the loop context of the clause's frame (DT_FRAME_LOOP).
 *
 * Every index is checked against strsize before it reaches a pointer, so
 * the verifier sees the bound; string operands point to at least strsize
 * readable bytes (dt_cg_impl.h), temporaries to 2 * strsize.
 *
 * strchr, strrchr and strstr return NULL when nothing matches, as DTrace
 * does; a NULL string used as a string (an operand here, a record, a
 * variable, a comparison with a string) faults with invalid address (0x0).
 */
#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)
#define SLOT(i)		((int16_t)(8 * (i)))	/* in the callback's ctx */

enum { CB_CHR, CB_STR_NEEDLE, CB_STR_WINDOW, CB_CASE, CB_PATH, CB_TOKSET,
       CB_TOK, CB_CLEAN, CB_ARGS, CB_DPATH };

/*
 * A step of a scan works on r6 = the loop context, r7 = i (0 <= i <
 * strsize, proven to the verifier); with a byte, r3 = the byte A[i] of
 * the string in ctx[0].  Steps are branch-free: in the subprogram form
 * the verifier then walks strsize steps without forking.
 */
/* d = (x == 0), for 0 <= x < 2^63 */
static void emit_iszero(dt_cg_t *cx, int d, int x)
{
	if (d != x)
		EMIT(DT_MOV64_REG(d, x));
	EMIT(DT_ALU64_IMM(BPF_SUB, d, 1));
	EMIT(DT_ALU64_IMM(BPF_RSH, d, 63));
}

/* slot = flag ? a : slot (flag 0 or 1; uses r0, r1) */
static void emit_select(dt_cg_t *cx, int slot, int flag, int a)
{
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R6, SLOT(slot)));
	EMIT(DT_MOV64_REG(DT_R1, a));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R1, DT_R0));
	EMIT(DT_MOV64_REG(DT_R2, flag));
	EMIT(DT_NEG64(DT_R2));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R1, DT_R2));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R1));
	EMIT(DT_STORE(BPF_DW, DT_R6, SLOT(slot), DT_R0));
}

/* ctx: 0 string, 2 char, 3 result (-1), 4 mode (0 first, 1 last),
 * 5 done (the NUL was seen) */
static void step_chr(dt_cg_t *cx)
{
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(2)));
	EMIT(DT_ALU64_REG(BPF_XOR, DT_R4, DT_R3));
	emit_iszero(cx, DT_R4, DT_R4);			/* A[i] == c */
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(5)));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R5, 1));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R5));	/* ... before the end */
	EMIT(DT_LOAD(BPF_DW, DT_R8, DT_R6, SLOT(3)));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R8, 1));
	emit_iszero(cx, DT_R8, DT_R8);			/* no match yet */
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(4)));
	EMIT(DT_ALU64_REG(BPF_OR, DT_R8, DT_R5));	/* ... or last */
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R8));
	emit_select(cx, 3, DT_R4, DT_R7);
	emit_iszero(cx, DT_R3, DT_R3);
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(5)));
	EMIT(DT_ALU64_REG(BPF_OR, DT_R5, DT_R3));
	EMIT(DT_STORE(BPF_DW, DT_R6, SLOT(5), DT_R5));
}

/* ctx: 0 string, 1 destination, 2 first letter to change ('a' or 'A'),
 * 3 what to add to it (-32 or 32) */
static void step_case(dt_cg_t *cx)
{
	/* x = A[i] + 256 - first: the letter range is [256, 282) */
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R4, 256));
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(2)));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R5));
	EMIT(DT_MOV64_REG(DT_R5, DT_R4));
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R5, 256));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R5, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R5, 1));		/* x >= 256 */
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R4, 282));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R4, 63));		/* x < 282 */
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R5));
	EMIT(DT_NEG64(DT_R4));
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(3)));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R5));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R4));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(1)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R7));
	EMIT(DT_STORE(BPF_B, DT_R4, 0, DT_R3));
}

/* ctx: 0 string, 1 the bytes to look at (those before its last NUL):
 * a NUL among them becomes a space */
static void step_args(dt_cg_t *cx)
{
	EMIT(DT_MOV64_REG(DT_R4, DT_R7));
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(1)));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R5));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R4, 63));		/* i < n */
	emit_iszero(cx, DT_R5, DT_R3);			/* A[i] == 0 */
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R5));
	EMIT(DT_ALU64_IMM(BPF_LSH, DT_R4, 5));		/* ' ' or 0 */
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R4));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(0)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R7));
	EMIT(DT_STORE(BPF_B, DT_R4, 0, DT_R3));
}

/* ctx: 0 string, 1 previous char (0 at the start), 2 start of the last
 * component (-1: none), 3 its end, 4 start of the slash run before it
 * (-1: none), 5 start of the current slash run, 6 done */
static void step_path(dt_cg_t *cx)
{
	/* r8 = active (before the NUL) */
	emit_iszero(cx, DT_R4, DT_R3);
	EMIT(DT_LOAD(BPF_DW, DT_R8, DT_R6, SLOT(6)));
	EMIT(DT_ALU64_REG(BPF_OR, DT_R8, DT_R4));
	EMIT(DT_STORE(BPF_DW, DT_R6, SLOT(6), DT_R8));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R8, 1));
	/* r9 = A[i] is a slash, r4 = the previous was (or i is 0: r5) */
	EMIT(DT_MOV64_REG(DT_R9, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R9, '/'));
	emit_iszero(cx, DT_R9, DT_R9);
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(1)));
	EMIT(DT_STORE(BPF_DW, DT_R6, SLOT(1), DT_R3));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R4, '/'));
	emit_iszero(cx, DT_R4, DT_R4);
	/* a slash run starts: active, slash, previous not a slash */
	EMIT(DT_MOV64_REG(DT_R3, DT_R4));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R3, 1));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R3, DT_R9));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R3, DT_R8));
	emit_select(cx, 5, DT_R3, DT_R7);
	/* component characters: active, not a slash */
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R9, 1));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R9, DT_R8));
	EMIT(DT_MOV64_REG(DT_R3, DT_R7));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, 1));
	emit_select(cx, 3, DT_R9, DT_R3);
	/* a component starts: at 0 or after a slash */
	emit_iszero(cx, DT_R5, DT_R7);
	EMIT(DT_ALU64_REG(BPF_OR, DT_R4, DT_R5));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R9, DT_R4));
	emit_select(cx, 2, DT_R9, DT_R7);
	/* the slash run before it: none at 0 */
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R6, SLOT(5)));
	EMIT(DT_MOV64_REG(DT_R4, DT_R5));
	EMIT(DT_NEG64(DT_R4));
	EMIT(DT_ALU64_REG(BPF_OR, DT_R3, DT_R4));	/* i == 0: -1 */
	emit_select(cx, 4, DT_R9, DT_R3);
}

/* ctx: 0 the delimiters (NUL padded), 1 a 256-bit set of bytes: A[i] is
 * added to it */
static void step_tokset(dt_cg_t *cx)
{
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R4, 3));
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(1)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R5));
	EMIT(DT_ALU64_IMM(BPF_AND, DT_R3, 7));
	EMIT(DT_MOV64_IMM(DT_R5, 1));
	EMIT(DT_ALU64_REG(BPF_LSH, DT_R5, DT_R3));
	EMIT(DT_LOAD(BPF_B, DT_R3, DT_R4, 0));
	EMIT(DT_ALU64_REG(BPF_OR, DT_R3, DT_R5));
	EMIT(DT_STORE(BPF_B, DT_R4, 0, DT_R3));
}

/* ctx: 0 the string, 1 the set of delimiters (NUL in it), 2 where to
 * start, 3 the token's start (-1: none yet), 4 its end (-1) */
static void step_tok(dt_cg_t *cx)
{
	/* r4 = A[i] is a delimiter */
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R4, 3));
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(1)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R5));
	EMIT(DT_LOAD(BPF_B, DT_R4, DT_R4, 0));
	EMIT(DT_ALU64_IMM(BPF_AND, DT_R3, 7));
	EMIT(DT_ALU64_REG(BPF_RSH, DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_AND, DT_R4, 1));
	/* the token starts: i >= start, none yet, not a delimiter */
	EMIT(DT_MOV64_REG(DT_R5, DT_R7));
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R6, SLOT(2)));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R5, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R5, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R5, 1));
	EMIT(DT_LOAD(BPF_DW, DT_R8, DT_R6, SLOT(3)));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R8, 1));
	emit_iszero(cx, DT_R8, DT_R8);
	EMIT(DT_ALU64_REG(BPF_AND, DT_R5, DT_R8));
	EMIT(DT_MOV64_REG(DT_R9, DT_R4));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R9, 1));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R5, DT_R9));
	emit_select(cx, 3, DT_R5, DT_R7);
	/* it ends: started, no end yet, a delimiter */
	EMIT(DT_LOAD(BPF_DW, DT_R8, DT_R6, SLOT(3)));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R8, 1));
	emit_iszero(cx, DT_R8, DT_R8);
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R8, 1));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R8));
	EMIT(DT_LOAD(BPF_DW, DT_R8, DT_R6, SLOT(4)));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R8, 1));
	emit_iszero(cx, DT_R8, DT_R8);
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R8));
	emit_select(cx, 4, DT_R4, DT_R7);
}

/*
 * cleanpath's steps, one per byte of the path, as DTrace's: a state
 * machine whose states are what follows the last byte written: a name
 * (CL_NAME), a slash not written yet (CL_SLASH), then "." (CL_DOT) and
 * ".." (CL_DOTDOT).  A ".." component takes the output back to the slash
 * before the last component: the offsets of the slashes written are kept
 * on a stack (u16 at ctx[5]).  Like DTrace's, it stops 5 bytes short of
 * strsize (the most a byte can write, "/..c", and the NUL).  Branches are
 * fine here: only bpf_loop() runs it (the verifier checks it once).
 *
 * ctx: 0 the path, 1 the output, 2 its length and the stack's depth (in
 * the mstate, where the verifier, which checks the step until its states
 * repeat, sees no number that changes at every step), 3 the state, 4
 * done, 5 the slash stack
 */
enum { CL_NAME, CL_SLASH, CL_DOT, CL_DOTDOT };
enum { CLV_LEN = 0, CLV_DEPTH = 8 };

/* reg = or := the length or the depth (op BPF_LDX / BPF_STX); uses r5 */
static void clean_var(dt_cg_t *cx, int op, int reg, int16_t var)
{
	EMIT(DT_LOAD(BPF_DW, DT_R5, DT_R6, SLOT(2)));
	if (op == BPF_LDX)
		EMIT(DT_LOAD(BPF_DW, reg, DT_R5, var));
	else
		EMIT(DT_STORE(BPF_DW, DT_R5, var, reg));
}

/* output[j++] = c, c a register or (reg < 0) the byte imm; uses r0-r2 */
static void clean_put(dt_cg_t *cx, int reg, int32_t imm)
{
	int full = dt_as_label(cx->as);

	clean_var(cx, BPF_LDX, DT_R0, CLV_LEN);
	dt_as_jump(cx->as, BPF_JGE, DT_R0, (int32_t)cx->st->strsize - 1, full);
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R6, SLOT(1)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	if (reg >= 0)
		EMIT(DT_STORE(BPF_B, DT_R1, 0, reg));
	else
		EMIT(DT_STORE_IMM(BPF_B, DT_R1, 0, imm));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, 1));
	clean_var(cx, BPF_STX, DT_R0, CLV_LEN);
	dt_as_place(cx->as, full);
}

/* A slash written: its offset (j) pushed, then the slash */
static void clean_slash(dt_cg_t *cx)
{
	int full = dt_as_label(cx->as);

	clean_var(cx, BPF_LDX, DT_R0, CLV_DEPTH);
	dt_as_jump(cx->as, BPF_JGE, DT_R0, (int32_t)cx->st->strsize / 2, full);
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R6, SLOT(5)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	clean_var(cx, BPF_LDX, DT_R2, CLV_LEN);
	EMIT(DT_STORE(BPF_H, DT_R1, 0, DT_R2));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, 1));
	clean_var(cx, BPF_STX, DT_R0, CLV_DEPTH);
	dt_as_place(cx->as, full);
	clean_put(cx, -1, '/');
}

/* ".." : j = the offset of the last slash written (popped), else 0;
 * r0 = 1 when there was one */
static void clean_back(dt_cg_t *cx)
{
	int none = dt_as_label(cx->as), done = dt_as_label(cx->as);

	clean_var(cx, BPF_LDX, DT_R0, CLV_DEPTH);
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, none);
	dt_as_jump(cx->as, BPF_JGT, DT_R0, (int32_t)cx->st->strsize / 2, none);
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R0, 1));
	clean_var(cx, BPF_STX, DT_R0, CLV_DEPTH);
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R6, SLOT(5)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R0));
	EMIT(DT_LOAD(BPF_H, DT_R1, DT_R1, 0));
	clean_var(cx, BPF_STX, DT_R1, CLV_LEN);
	EMIT(DT_MOV64_IMM(DT_R0, 1));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, none);
	EMIT(DT_MOV64_IMM(DT_R1, 0));
	clean_var(cx, BPF_STX, DT_R1, CLV_LEN);
	dt_as_place(cx->as, done);
}

static void clean_state(dt_cg_t *cx, int32_t state)
{
	EMIT(DT_STORE_IMM(BPF_DW, DT_R6, SLOT(3), state));
}

/* Jump to stop unless 5 bytes of strsize are left after the output */
static void clean_room(dt_cg_t *cx, int stop)
{
	clean_var(cx, BPF_LDX, DT_R0, CLV_LEN);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, 5));
	dt_as_jump(cx->as, BPF_JGE, DT_R0, (int32_t)cx->st->strsize, stop);
}

/* Jump to to when c (r8) is ch */
static void clean_if(dt_cg_t *cx, int ch, int to)
{
	dt_as_jump(cx->as, BPF_JEQ, DT_R8, ch, to);
}

/* When c (r8) is ch: the state becomes state, the step ends */
static void clean_if_state(dt_cg_t *cx, int ch, int32_t state, int out)
{
	int other = dt_as_label(cx->as);

	dt_as_jump(cx->as, BPF_JNE, DT_R8, ch, other);
	clean_state(cx, state);
	dt_as_jump(cx->as, BPF_JA, 0, 0, out);
	dt_as_place(cx->as, other);
}

/* In a name: a slash waits, the NUL ends, another byte is written */
static void clean_name(dt_cg_t *cx, int out, int stop)
{
	clean_if(cx, 0, stop);
	clean_if_state(cx, '/', CL_SLASH, out);
	clean_put(cx, DT_R8, 0);
	dt_as_jump(cx->as, BPF_JA, 0, 0, out);
}

/* A final "/..": the output ends after the slash before the last
 * component; with none, after its first byte ("/" when it is empty) */
static void clean_final_dotdot(dt_cg_t *cx, int stop)
{
	int none = dt_as_label(cx->as), kept = dt_as_label(cx->as);

	clean_back(cx);
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, none);
	clean_put(cx, -1, '/');
	dt_as_jump(cx->as, BPF_JA, 0, 0, stop);
	dt_as_place(cx->as, none);
	EMIT(DT_LOAD(BPF_DW, DT_R1, DT_R6, SLOT(1)));
	EMIT(DT_LOAD(BPF_B, DT_R0, DT_R1, 0));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, kept);
	EMIT(DT_STORE_IMM(BPF_B, DT_R1, 0, '/'));
	dt_as_place(cx->as, kept);
	EMIT(DT_MOV64_IMM(DT_R1, 1));
	clean_var(cx, BPF_STX, DT_R1, CLV_LEN);
	dt_as_jump(cx->as, BPF_JA, 0, 0, stop);
}

/* After "/..": "/../" goes back one component (the slash then read
 * again, its room checked again), so does a final "/..", else "/..c" */
static void clean_dotdot(dt_cg_t *cx, int out, int stop, int name)
{
	int back = dt_as_label(cx->as), final = dt_as_label(cx->as);

	clean_if(cx, '/', back);
	clean_if(cx, 0, final);
	clean_slash(cx);
	clean_put(cx, -1, '.');
	clean_put(cx, -1, '.');
	dt_as_jump(cx->as, BPF_JA, 0, 0, name);
	dt_as_place(cx->as, back);
	clean_back(cx);
	clean_state(cx, CL_SLASH);
	clean_room(cx, stop);
	dt_as_jump(cx->as, BPF_JA, 0, 0, out);
	dt_as_place(cx->as, final);
	clean_final_dotdot(cx, stop);
}

static void step_clean(dt_cg_t *cx)
{
	int out = dt_as_label(cx->as), stop = dt_as_label(cx->as);
	int check = dt_as_label(cx->as), checked = dt_as_label(cx->as);
	int slash = dt_as_label(cx->as), dot = dt_as_label(cx->as);
	int dotdot = dt_as_label(cx->as), name = dt_as_label(cx->as);

	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(4)));
	dt_as_jump(cx->as, BPF_JNE, DT_R4, 0, out);
	EMIT(DT_MOV64_REG(DT_R8, DT_R3));			/* c */
	EMIT(DT_LOAD(BPF_DW, DT_R9, DT_R6, SLOT(3)));		/* state */
	/* room left: checked on a name's byte and on every slash */
	dt_as_jump(cx->as, BPF_JEQ, DT_R9, CL_NAME, check);
	dt_as_jump(cx->as, BPF_JNE, DT_R8, '/', checked);
	dt_as_place(cx->as, check);
	clean_room(cx, stop);
	dt_as_place(cx->as, checked);
	dt_as_jump(cx->as, BPF_JEQ, DT_R9, CL_SLASH, slash);
	dt_as_jump(cx->as, BPF_JEQ, DT_R9, CL_DOT, dot);
	dt_as_jump(cx->as, BPF_JEQ, DT_R9, CL_DOTDOT, dotdot);
	clean_name(cx, out, stop);
	/* after a slash: "//" is one, "/." may be ".", else "/c" */
	dt_as_place(cx->as, slash);
	clean_if(cx, '/', out);
	clean_if_state(cx, '.', CL_DOT, out);
	clean_slash(cx);
	dt_as_jump(cx->as, BPF_JA, 0, 0, name);
	/* after "/.": "/./" is nothing, "/.." may be "..", else "/.c" */
	dt_as_place(cx->as, dot);
	clean_if_state(cx, '/', CL_SLASH, out);
	clean_if_state(cx, '.', CL_DOTDOT, out);
	clean_slash(cx);
	clean_put(cx, -1, '.');
	dt_as_jump(cx->as, BPF_JA, 0, 0, name);
	dt_as_place(cx->as, dotdot);
	clean_dotdot(cx, out, stop, name);
	/* c after a slash written: a name goes on, the NUL ends */
	dt_as_place(cx->as, name);
	clean_if(cx, 0, stop);
	clean_put(cx, DT_R8, 0);
	clean_state(cx, CL_NAME);
	dt_as_jump(cx->as, BPF_JA, 0, 0, out);
	dt_as_place(cx->as, stop);
	EMIT(DT_STORE_IMM(BPF_DW, DT_R6, SLOT(4), 1));
	dt_as_place(cx->as, out);
}

/* The power of two at or above n: masks that prove a bound to the
 * verifier. */
static uint32_t pow2_above(uint32_t n)
{
	uint32_t p = 1;
	while (p < n)
		p <<= 1;
	return p;
}

#define DT_HASH_BASE	1000003		/* odd: a unit mod 2^64 */

/* r0 = (r0 < r1) for 0 <= r0, r1 < 2^63 */
static void emit_lt(dt_cg_t *cx, int a, int b)
{
	EMIT(DT_ALU64_REG(BPF_SUB, a, b));
	EMIT(DT_ALU64_IMM(BPF_RSH, a, 63));
}

/* slot = flag ? val : slot, flag 0 or 1 (uses r0..r2; val not r0..r2) */
#define SELECT_SLOT(slot, flag, val) emit_select(cx, slot, flag, val)

/*
 * Substring search by rolling hash (Rabin-Karp, mod 2^64): two scans, one
 * over the needle, one over the haystack.  ctx: 0 needle hash (out of the
 * first), 1 base^needle length (1 at the start), 2 needle length,
 * 3 result (-1), 4 mode (0 first at or after slot 5, 1 last at or before
 * it), 5 start, 6 haystack length, 7 the mstate, 8 the hash of the window
 * (0 at the start).  The caller left the haystack NUL padded at off_cmp (a
 * power-of-two window, so that masked indices stay inside) and the needle
 * at off_cmp + that window.  A hash equality is taken as a match: a false
 * one needs a 64-bit collision.
 */
static void step_needle(dt_cg_t *cx)
{
	uint32_t b = cx->st->off_cmp + pow2_above(cx->st->strsize);

	EMIT(DT_LOAD(BPF_DW, DT_R8, DT_R6, SLOT(7)));
	EMIT(DT_LOAD(BPF_DW, DT_R9, DT_R6, SLOT(0)));
	EMIT(DT_MOV64_REG(DT_R5, DT_R7));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(2)));
	emit_lt(cx, DT_R5, DT_R4);			/* r5 = k < length */
	EMIT(DT_MOV64_REG(DT_R3, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, (int32_t)b));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R7));
	EMIT(DT_LOAD(BPF_B, DT_R3, DT_R3, 0));
	EMIT(DT_MOV64_REG(DT_R4, DT_R9));
	EMIT(DT_ALU64_IMM(BPF_MUL, DT_R4, DT_HASH_BASE));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R3));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R9));
	EMIT(DT_MOV64_REG(DT_R3, DT_R5));
	EMIT(DT_NEG64(DT_R3));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R3));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R9, DT_R4));	/* hash, if k < length */
	EMIT(DT_STORE(BPF_DW, DT_R6, SLOT(0), DT_R9));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(1)));
	EMIT(DT_ALU64_IMM(BPF_MUL, DT_R4, DT_HASH_BASE));
	SELECT_SLOT(1, DT_R5, DT_R4);			/* power */
}

/* r2 = whether the window ending at i (r7) matches the needle: it starts
 * at p = i + 1 - length >= 0 (r5 = p), ends inside the haystack and its
 * hash (r9) is the needle's */
static void window_match(dt_cg_t *cx)
{
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(2)));
	EMIT(DT_MOV64_REG(DT_R5, DT_R7));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R5, 1));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R5, DT_R4));
	EMIT(DT_MOV64_REG(DT_R2, DT_R5));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R2, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R2, 1));
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R6, SLOT(6)));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R3, DT_R7));
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R3, 1));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R3, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R3, 1));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R2, DT_R3));
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R6, SLOT(0)));
	EMIT(DT_ALU64_REG(BPF_XOR, DT_R3, DT_R9));
	EMIT(DT_MOV64_IMM(DT_R4, 0));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R3));
	EMIT(DT_ALU64_REG(BPF_OR, DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R4, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R4, 1));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R2, DT_R4));
}

static void step_window(dt_cg_t *cx)
{
	uint32_t p2 = pow2_above(cx->st->strsize), c = cx->st->off_cmp;

	EMIT(DT_LOAD(BPF_DW, DT_R8, DT_R6, SLOT(7)));
	EMIT(DT_LOAD(BPF_DW, DT_R9, DT_R6, SLOT(8)));
	EMIT(DT_ALU64_IMM(BPF_MUL, DT_R9, DT_HASH_BASE));
	EMIT(DT_MOV64_REG(DT_R3, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, (int32_t)c));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R7));
	EMIT(DT_LOAD(BPF_B, DT_R3, DT_R3, 0));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R9, DT_R3));
	/* drop the byte leaving the window: C[i - length] when i >= length */
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(2)));
	EMIT(DT_MOV64_REG(DT_R5, DT_R7));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R5, DT_R4));	/* i - length */
	EMIT(DT_MOV64_REG(DT_R2, DT_R5));
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R2, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R2, 1));		/* i >= length */
	EMIT(DT_ALU64_IMM(BPF_AND, DT_R5, (int32_t)(p2 - 1)));
	EMIT(DT_MOV64_REG(DT_R3, DT_R8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, (int32_t)c));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R5));
	EMIT(DT_LOAD(BPF_B, DT_R3, DT_R3, 0));
	EMIT(DT_ALU64_REG(BPF_MUL, DT_R3, DT_R2));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R6, SLOT(1)));
	EMIT(DT_ALU64_REG(BPF_MUL, DT_R3, DT_R4));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R9, DT_R3));
	EMIT(DT_STORE(BPF_DW, DT_R6, SLOT(8), DT_R9));
	window_match(cx);				/* r2, r5 = p */
	/* first: p >= start and none yet; last: p <= start */
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R6, SLOT(5)));
	EMIT(DT_MOV64_REG(DT_R3, DT_R5));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R3, DT_R0));	/* p - start */
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	EMIT(DT_NEG64(DT_R4));				/* start - p */
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R3, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R3, 1));		/* p >= start */
	EMIT(DT_ALU64_IMM(BPF_RSH, DT_R4, 63));
	EMIT(DT_ALU64_IMM(BPF_XOR, DT_R4, 1));		/* p <= start */
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R6, SLOT(3)));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, 1));
	emit_iszero(cx, DT_R0, DT_R0);			/* none yet */
	EMIT(DT_ALU64_REG(BPF_AND, DT_R3, DT_R0));
	EMIT(DT_ALU64_REG(BPF_XOR, DT_R4, DT_R3));	/* mode ? r4 : r3 */
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R6, SLOT(4)));
	EMIT(DT_NEG64(DT_R0));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R4, DT_R0));
	EMIT(DT_ALU64_REG(BPF_XOR, DT_R3, DT_R4));
	EMIT(DT_ALU64_REG(BPF_AND, DT_R2, DT_R3));
	EMIT(DT_MOV64_REG(DT_R3, DT_R2));
	EMIT(DT_MOV64_REG(DT_R4, DT_R5));
	SELECT_SLOT(3, DT_R3, DT_R4);
}

static const struct scan_kind {
	void (*step)(dt_cg_t *);
	bool byte;		/* the step reads A[i] into r3 */
} scan_kinds[DT_CG_NSCANS] = {
	[CB_CHR] = { step_chr, true },
	[CB_STR_NEEDLE] = { step_needle, false },
	[CB_STR_WINDOW] = { step_window, false },
	[CB_CASE] = { step_case, true },
	[CB_PATH] = { step_path, true },
	[CB_TOKSET] = { step_tokset, true },
	[CB_TOK] = { step_tok, true },
	[CB_CLEAN] = { step_clean, true },
	[CB_ARGS] = { step_args, true },
	[CB_DPATH] = { dt_cg_dpath_step, false },
};

/* r3 = A[i], the byte of the string in ctx[0] at r7 */
static void load_byte(dt_cg_t *cx)
{
	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R6, SLOT(0)));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R7));
	EMIT(DT_LOAD(BPF_B, DT_R3, DT_R3, 0));
}

/* The bpf_loop() callback: int cb(u32 i, u64 *ctx), one step; 1 stops
 * the loop (an i out of range, which bpf_loop never passes). */
static void emit_callback(dt_cg_t *cx, const struct scan_kind *k)
{
	int out = dt_as_label(cx->as);

	EMIT(DT_MOV64_REG(DT_R6, DT_R2));
	EMIT(DT_MOV64_REG(DT_R7, DT_R1));
	dt_as_jump(cx->as, BPF_JGE, DT_R7, (int32_t)cx->st->strsize, out);
	if (k->byte)
		load_byte(cx);
	k->step(cx);
	EMIT(DT_MOV64_IMM(DT_R0, 0));
	EMIT(DT_EXIT());
	dt_as_place(cx->as, out);
	EMIT(DT_MOV64_IMM(DT_R0, 1));
	EMIT(DT_EXIT());
}

/* Without bpf_loop: void scan(u64 *ctx), the steps in a loop whose
 * outcome the verifier knows at every turn (i is exact). */
static void emit_loop_subprogram(dt_cg_t *cx, const struct scan_kind *k)
{
	int loop = dt_as_label(cx->as), out = dt_as_label(cx->as);

	EMIT(DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(DT_MOV64_IMM(DT_R7, 0));
	dt_as_place(cx->as, loop);
	dt_as_jump(cx->as, BPF_JGE, DT_R7, (int32_t)cx->st->strsize, out);
	if (k->byte)
		load_byte(cx);
	k->step(cx);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R7, 1));
	dt_as_jump(cx->as, BPF_JA, 0, 0, loop);
	dt_as_place(cx->as, out);
	EMIT(DT_MOV64_IMM(DT_R0, 0));
	EMIT(DT_EXIT());
}

static bool have_loop(dt_cg_t *cx)
{
	return dt_bpf_features(cx->dtp)->loop;
}

void dt_cg_callbacks(dt_cg_t *cx)
{
	for (int i = 0; i < DT_CG_NSCANS; i++) {
		if (cx->lbl_cb[i] < 0)
			continue;
		dt_as_place(cx->as, cx->lbl_cb[i]);
		if (have_loop(cx))
			emit_callback(cx, &scan_kinds[i]);
		else
			emit_loop_subprogram(cx, &scan_kinds[i]);
	}
}

/* ---- callers ---- */

/* A string operand: never NULL past this point (the scans read it).  A
 * char * or void * (scratch memory, a kernel address) is copied into a
 * temporary first: the scans read their operand in place, which the
 * verifier allows in BPF memory only; an address that cannot be read
 * faults. */
static int str_operand(dt_cg_t *cx, dt_node_t *n)
{
	int r = dt_cg_expr(cx, n);

	dt_cg_str_notnull(cx, r);
	if (!dt_check_is_string(n->type)) {
		uint32_t t = dt_cg_temp(cx);

		dt_cg_mst_ptr(cx, DT_R1, t);
		EMIT(DT_MOV64_IMM(DT_R2, (int32_t)cx->st->strsize));
		EMIT(DT_MOV64_REG(DT_R3, r));
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
		dt_cg_fault_if(cx, BPF_JSLT, DT_R0, 0, DT_FAULT_BADADDR, r);
		dt_cg_mst_ptr(cx, r, t);
	}
	return r;
}


static void loop_slot(dt_cg_t *cx, int i, int reg)
{
	EMIT(DT_STORE(BPF_DW, DT_FP, (int16_t)DT_FRAME_LOOP_SLOT(i), reg));
}

static void loop_slot_imm(dt_cg_t *cx, int i, int32_t v)
{
	EMIT(DT_STORE_IMM(BPF_DW, DT_FP, (int16_t)DT_FRAME_LOOP_SLOT(i), v));
}

static void loop_init(dt_cg_t *cx)
{
	for (int i = 0; i < DT_LOOP_NSLOTS; i++)
		loop_slot_imm(cx, i, 0);
}

/* The scan of kind cb over the loop context: bpf_loop(strsize, step,
 * &ctx, 0), or the subprogram scan(&ctx) */
static void emit_loop(dt_cg_t *cx, int cb)
{
	if (cx->lbl_cb[cb] < 0)
		cx->lbl_cb[cb] = dt_as_label(cx->as);
	if (!have_loop(cx)) {
		EMIT(DT_MOV64_REG(DT_R1, DT_FP));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R1, DT_FRAME_LOOP));
		dt_as_call(cx->as, cx->lbl_cb[cb]);
		return;
	}
	EMIT(DT_MOV64_IMM(DT_R1, (int32_t)cx->st->strsize));
	dt_as_ld_func(cx->as, DT_R2, cx->lbl_cb[cb]);
	EMIT(DT_MOV64_REG(DT_R3, DT_FP));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, DT_FRAME_LOOP));
	EMIT(DT_MOV64_IMM(DT_R4, 0));
	EMIT(DT_CALL_HELPER(BPF_FUNC_loop));
}

static void load_slot(dt_cg_t *cx, int reg, int i)
{
	EMIT(DT_LOAD(BPF_DW, reg, DT_FP, (int16_t)DT_FRAME_LOOP_SLOT(i)));
}

/* What other files' scans use of the loop context (d_path()) */
void dt_cg_loop_slot(dt_cg_t *cx, int i, int reg) { loop_slot(cx, i, reg); }
void dt_cg_loop_slot_imm(dt_cg_t *cx, int i, int32_t v)
{
	loop_slot_imm(cx, i, v);
}
void dt_cg_loop_load(dt_cg_t *cx, int reg, int i) { load_slot(cx, reg, i); }
void dt_cg_loop_init(dt_cg_t *cx) { loop_init(cx); }
bool dt_cg_have_loop(dt_cg_t *cx) { return have_loop(cx); }
void dt_cg_dpath_loop(dt_cg_t *cx) { emit_loop(cx, CB_DPATH); }

/* Copy the string at src into the machine state at offset dst (strsize
 * bytes, NUL terminated); reg = its length. */
void dt_cg_str_copy(dt_cg_t *cx, int reg, int src, uint32_t dst)
{
	int pos = dt_as_label(cx->as);

	dt_cg_mst_ptr(cx, DT_R1, dst);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)cx->st->strsize));
	EMIT(DT_MOV64_REG(DT_R3, src));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	EMIT(DT_MOV64_REG(reg, DT_R0));
	dt_as_jump(cx->as, BPF_JSGT, reg, 0, pos);
	EMIT(DT_MOV64_IMM(reg, 1));
	dt_as_place(cx->as, pos);
	EMIT(DT_ALU64_IMM(BPF_SUB, reg, 1));
}

/* reg = strlen of the string in src (copied to the comparison buffer, free
 * outside strcmp, to count) */
void dt_cg_strlen(dt_cg_t *cx, int reg, int src)
{
	dt_cg_str_copy(cx, reg, src, cx->st->off_cmp);
}

/* Copy len (r4) bytes of the string at src (r3) + off (r5) into a new
 * temporary, NUL terminated; dst becomes it.  len <= 0 gives "". */
static void emit_extract(dt_cg_t *cx, int dst)
{
	uint32_t t = dt_cg_temp(cx), ss = cx->st->strsize;
	int empty = dt_as_label(cx->as), fits = dt_as_label(cx->as);

	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)t, 0));
	dt_as_jump(cx->as, BPF_JSLE, DT_R4, 0, empty);
	dt_as_jump(cx->as, BPF_JSLT, DT_R5, 0, empty);
	dt_as_jump(cx->as, BPF_JGE, DT_R5, (int32_t)ss, empty);
	dt_as_jump(cx->as, BPF_JLT, DT_R4, (int32_t)ss, fits);
	EMIT(DT_MOV64_IMM(DT_R4, (int32_t)ss - 1));
	dt_as_place(cx->as, fits);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R3, DT_R5));
	EMIT(DT_MOV64_REG(DT_R2, DT_R4));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	dt_as_place(cx->as, empty);
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(t + ss - 1), 0));
	dt_cg_mst_ptr(cx, dst, t);
}

/* s = NULL when the scan found nothing (slot 3 still -1). */
static void null_if_none(dt_cg_t *cx, int s)
{
	int found = dt_as_label(cx->as);

	load_slot(cx, DT_R5, 3);
	dt_as_jump(cx->as, BPF_JNE, DT_R5, -1, found);
	EMIT(DT_MOV64_IMM(s, 0));
	dt_as_place(cx->as, found);
}

/* strchr(s, c), strrchr(s, c): the rest of s from the first / last c */
static int cg_strchr(dt_cg_t *cx, dt_node_t *n, bool last)
{
	int s = str_operand(cx, n->args);
	int c = dt_cg_expr(cx, n->args->next);

	loop_init(cx);
	EMIT(DT_MOV64_REG(DT_R0, c));
	EMIT(DT_ALU64_IMM(BPF_AND, DT_R0, 0xff));
	loop_slot(cx, 2, DT_R0);
	dt_regs_give(cx, c);
	loop_slot(cx, 0, s);
	loop_slot_imm(cx, 3, -1);
	loop_slot_imm(cx, 4, last);
	emit_loop(cx, CB_CHR);
	/* the suffix: from the match to the end */
	load_slot(cx, DT_R5, 3);
	EMIT(DT_MOV64_REG(DT_R3, s));
	EMIT(DT_MOV64_IMM(DT_R4, (int32_t)cx->st->strsize - 1));
	emit_extract(cx, s);
	null_if_none(cx, s);
	return s;
}

/* Copy the string in src to mstate offset dst, NUL padded to size. */
static void pad_copy(dt_cg_t *cx, uint32_t dst, uint32_t size, int src)
{
	dt_cg_mst_ptr(cx, DT_R1, dst);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)size));
	dt_cg_mst_ptr(cx, DT_R3, cx->st->off_aggval);
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_cg_mst_ptr(cx, DT_R1, dst);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)cx->st->strsize));
	EMIT(DT_MOV64_REG(DT_R3, src));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
}

/* The empty needle is found at start (clamped to the haystack's length
 * for rindex; -1 past it for index). */
static void empty_needle(dt_cg_t *cx, bool last)
{
	int done = dt_as_label(cx->as), ok = dt_as_label(cx->as);

	load_slot(cx, DT_R0, 2);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, done);
	load_slot(cx, DT_R0, 5);
	load_slot(cx, DT_R1, 6);
	dt_as_jump_reg(cx->as, BPF_JSLE, DT_R0, DT_R1, ok);
	if (last)
		EMIT(DT_MOV64_REG(DT_R0, DT_R1));
	else
		EMIT(DT_MOV64_IMM(DT_R0, -1));
	dt_as_place(cx->as, ok);
	loop_slot(cx, 3, DT_R0);
	dt_as_place(cx->as, done);
}

/* index(s, sub[, start]), rindex(s, sub[, start]), strstr(s, sub).
 * Operands are evaluated first (a nested scan would reuse the loop
 * context), then each register is used while it is the newest one (the
 * only kind sure not to be spilled) and given back. */
static int cg_index(dt_cg_t *cx, dt_node_t *n, bool last, bool suffix)
{
	uint32_t ss = cx->st->strsize;
	uint32_t b = cx->st->off_cmp + pow2_above(ss);
	int s = str_operand(cx, n->args);
	int sub = str_operand(cx, n->args->next);
	dt_node_t *start = n->args->next->next;

	if (start != NULL) {
		int st = dt_cg_expr(cx, start);
		int ok = dt_as_label(cx->as);
		/* a negative start: from 0 for index; nothing for rindex */
		EMIT(DT_MOV64_REG(DT_R0, st));
		dt_regs_give(cx, st);
		dt_as_jump(cx->as, BPF_JSGE, DT_R0, 0, ok);
		EMIT(DT_MOV64_IMM(DT_R0, last ? -1 : 0));
		dt_as_place(cx->as, ok);
		loop_slot(cx, 5, DT_R0);
	} else {
		loop_slot_imm(cx, 5, last ? (int32_t)ss : 0);
	}
	for (int i = 0; i < DT_LOOP_NSLOTS; i++)
		if (i != 5)
			loop_slot_imm(cx, i, 0);
	/* lengths first (dt_cg_strlen borrows the comparison buffer) */
	dt_cg_strlen(cx, DT_R0, sub);
	loop_slot(cx, 2, DT_R0);
	dt_cg_strlen(cx, DT_R0, s);
	loop_slot(cx, 6, DT_R0);
	/* the needle and the haystack, NUL padded */
	pad_copy(cx, b, cx->st->strroom, sub);
	dt_regs_give(cx, sub);
	pad_copy(cx, cx->st->off_cmp, pow2_above(ss), s);
	loop_slot_imm(cx, 1, 1);
	loop_slot_imm(cx, 3, -1);
	loop_slot_imm(cx, 4, last);
	EMIT(DT_STORE(BPF_DW, DT_FP, (int16_t)DT_FRAME_LOOP_SLOT(7), DT_R9));
	emit_loop(cx, CB_STR_NEEDLE);
	emit_loop(cx, CB_STR_WINDOW);
	empty_needle(cx, last);
	if (!suffix) {
		load_slot(cx, s, 3);
		return s;
	}
	load_slot(cx, DT_R5, 3);
	EMIT(DT_MOV64_REG(DT_R3, s));
	EMIT(DT_MOV64_IMM(DT_R4, (int32_t)ss - 1));
	emit_extract(cx, s);
	null_if_none(cx, s);
	return s;
}

static int cg_case(dt_cg_t *cx, dt_node_t *n, bool lower)
{
	int s = str_operand(cx, n->args);
	uint32_t t = dt_cg_temp(cx);

	loop_init(cx);
	loop_slot(cx, 0, s);
	dt_cg_mst_ptr(cx, DT_R0, t);
	loop_slot(cx, 1, DT_R0);
	loop_slot_imm(cx, 2, lower ? 'A' : 'a');
	loop_slot_imm(cx, 3, lower ? 'a' - 'A' : 'A' - 'a');
	emit_loop(cx, CB_CASE);
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(t + cx->st->strsize - 1), 0));
	dt_cg_mst_ptr(cx, s, t);
	return s;
}

/* s = a new temporary holding the one-character string ch */
static void one_char(dt_cg_t *cx, int s, char ch)
{
	uint32_t t = dt_cg_temp(cx);

	EMIT(DT_STORE_IMM(BPF_H, DT_R9, (int16_t)t, (uint8_t)ch));
	dt_cg_mst_ptr(cx, s, t);
}

/*
 * basename(s) and dirname(s), as DTrace has them: trailing slashes do not
 * count; a path without a slash has dirname "."; "/" and "" are their own
 * basename ("/" and ".").
 */
static int cg_path(dt_cg_t *cx, dt_node_t *n, bool dir)
{
	int s = str_operand(cx, n->args);
	int slash = dt_as_label(cx->as), dot = dt_as_label(cx->as);
	int done = dt_as_label(cx->as), none = dt_as_label(cx->as);

	loop_init(cx);
	loop_slot(cx, 0, s);
	loop_slot_imm(cx, 2, -1);
	loop_slot_imm(cx, 4, -1);
	emit_loop(cx, CB_PATH);
	load_slot(cx, DT_R0, 2);
	dt_as_jump(cx->as, BPF_JSLT, DT_R0, 0, none);
	if (dir) {
		load_slot(cx, DT_R4, 4);
		dt_as_jump(cx->as, BPF_JSLT, DT_R4, 0, dot);
		dt_as_jump(cx->as, BPF_JEQ, DT_R4, 0, slash);
		EMIT(DT_MOV64_IMM(DT_R5, 0));
	} else {
		load_slot(cx, DT_R5, 2);
		load_slot(cx, DT_R4, 3);
		EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R5));
	}
	EMIT(DT_MOV64_REG(DT_R3, s));
	emit_extract(cx, s);
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	/* no component: "" gives ".", only slashes give "/" */
	dt_as_place(cx->as, none);
	EMIT(DT_LOAD(BPF_B, DT_R0, s, 0));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0, dot);
	dt_as_place(cx->as, slash);
	one_char(cx, s, '/');
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, dot);
	one_char(cx, s, '.');
	dt_as_place(cx->as, done);
	return s;
}

/*
 * substr(s, index[, length]) with DTrace's rules: a negative index counts
 * from the end (and eats into length when it reaches before the start); a
 * negative length leaves that many characters off the end; an index past
 * the end gives "".
 */
static int cg_substr(dt_cg_t *cx, dt_node_t *n)
{
	dt_as_t *as = cx->as;
	int32_t ss = (int32_t)cx->st->strsize;
	int s = str_operand(cx, n->args);
	int idx = dt_cg_expr(cx, n->args->next);
	int rem = -1;
	int posidx = dt_as_label(as), inrange = dt_as_label(as);
	int empty = dt_as_label(as), fits = dt_as_label(as);
	int copy = dt_as_label(as);

	if (n->args->next->next != NULL)
		rem = dt_cg_expr(cx, n->args->next->next);
	/* remaining and index wait in the loop context (no expression is
	 * evaluated from here on); r3 = len, r4 = remaining, r5 = index */
	if (rem >= 0) {
		loop_slot(cx, 1, rem);
		dt_regs_give(cx, rem);
	} else {
		loop_slot_imm(cx, 1, ss);
	}
	loop_slot(cx, 0, idx);
	dt_regs_give(cx, idx);
	dt_cg_strlen(cx, DT_R0, s);
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
	load_slot(cx, DT_R5, 0);
	load_slot(cx, DT_R4, 1);
	dt_as_jump(as, BPF_JSGE, DT_R5, 0, posidx);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R5, DT_R3));
	dt_as_jump(as, BPF_JSGE, DT_R5, 0, posidx);
	EMIT(DT_MOV64_REG(DT_R0, DT_R5));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R4));
	dt_as_jump(as, BPF_JSLE, DT_R0, 0, posidx);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R5));
	EMIT(DT_MOV64_IMM(DT_R5, 0));
	dt_as_place(as, posidx);
	dt_as_jump(as, BPF_JSLT, DT_R5, 0, empty);
	dt_as_jump_reg(as, BPF_JSGE, DT_R5, DT_R3, empty);
	dt_as_jump(as, BPF_JSGE, DT_R4, 0, inrange);
	/* negative length: leave that many off the end */
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R4, DT_R3));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R5));
	dt_as_jump(as, BPF_JA, 0, 0, copy);
	dt_as_place(as, inrange);
	EMIT(DT_MOV64_REG(DT_R0, DT_R5));
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R4));
	dt_as_jump(as, BPF_JSLE, DT_R0, ss, fits);
	EMIT(DT_MOV64_IMM(DT_R4, ss));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R5));
	dt_as_place(as, fits);
	dt_as_jump(as, BPF_JA, 0, 0, copy);
	dt_as_place(as, empty);
	EMIT(DT_MOV64_IMM(DT_R4, 0));
	dt_as_place(as, copy);
	EMIT(DT_MOV64_REG(DT_R3, s));
	emit_extract(cx, s);
	return s;
}

/*
 * strtok(s, delim): s (NULL: the rest of the previous string) from the
 * saved position, delimiters skipped, up to the next delimiter or the end.
 * The string is copied to off_strtok, and the position after the token
 * (at its delimiter) kept in mstate.strtok, so that the next call of this
 * firing goes on from there, in this clause or the next; a firing starts
 * with none (the prologue, 0), as in DTrace, where a call with NULL
 * faults: invalid address (0x0).  No token: NULL, and the next calls with
 * NULL give NULL until a new string (the position strsize, past every
 * token).
 */
static int cg_strtok(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t ss = cx->st->strsize, tok = cx->st->off_strtok;
	uint32_t set = cx->st->off_cmp + cx->st->strroom;
	int s = dt_cg_expr(cx, n->args);
	int d = str_operand(cx, n->args->next);
	int fresh = dt_as_label(cx->as), cont = dt_as_label(cx->as);
	int found;

	dt_as_jump(cx->as, BPF_JNE, s, 0, fresh);
	EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(strtok)));
	dt_cg_fault_if(cx, BPF_JEQ, DT_R0, 0, DT_FAULT_BADADDR, -1);
	dt_as_jump(cx->as, BPF_JA, 0, 0, cont);
	dt_as_place(cx->as, fresh);
	pad_copy(cx, tok, cx->st->strroom, s);
	EMIT(DT_STORE_IMM(BPF_W, DT_R9, DT_MST_OFF(strtok), 1));
	dt_as_place(cx->as, cont);
	/* the set of delimiters, NUL among them */
	pad_copy(cx, cx->st->off_cmp, cx->st->strroom, d);
	dt_regs_give(cx, d);
	for (int i = 0; i < 4; i++)
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(set + 8 * i), 0));
	loop_init(cx);
	dt_cg_mst_ptr(cx, DT_R0, cx->st->off_cmp);
	loop_slot(cx, 0, DT_R0);
	dt_cg_mst_ptr(cx, DT_R0, set);
	loop_slot(cx, 1, DT_R0);
	emit_loop(cx, CB_TOKSET);
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)set, 1));
	/* the token */
	dt_cg_mst_ptr(cx, DT_R0, tok);
	loop_slot(cx, 0, DT_R0);
	/* the start (1 + it in mstate.strtok, never 0 here) */
	EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, DT_MST_OFF(strtok)));
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R0, 1));
	loop_slot(cx, 2, DT_R0);
	loop_slot_imm(cx, 3, -1);
	loop_slot_imm(cx, 4, -1);
	emit_loop(cx, CB_TOK);
	load_slot(cx, DT_R5, 3);
	load_slot(cx, DT_R4, 4);
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R4, DT_R5));
	dt_cg_mst_ptr(cx, DT_R3, tok);
	emit_extract(cx, s);
	/* the next start: the token's end, or past every token */
	load_slot(cx, DT_R0, 4);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, 1));
	load_slot(cx, DT_R5, 3);
	dt_as_jump(cx->as, BPF_JNE, DT_R5, -1, found = dt_as_label(cx->as));
	EMIT(DT_MOV64_IMM(s, 0));
	EMIT(DT_MOV64_IMM(DT_R0, (int32_t)ss + 1));
	dt_as_place(cx->as, found);
	EMIT(DT_STORE(BPF_W, DT_R9, DT_MST_OFF(strtok), DT_R0));
	return s;
}

/* cleanpath(s): s without "//", "/./" and "dir/.." (step_clean).  The
 * output is zeroed first: its first byte tells a path that had none. */
static int cg_cleanpath(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t ss = cx->st->strsize, t = dt_cg_temp(cx);
	uint32_t vars = cx->st->off_cmp + cx->st->strroom;
	int s = str_operand(cx, n->args);

	if (!have_loop(cx))
		dt_pcb_error(cx->pcb, D_UNKNOWN, n->line, "cleanpath( ) needs "
			     "bpf_loop(), which this kernel lacks");
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)t, 0));
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(vars + CLV_LEN), 0));
	EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)(vars + CLV_DEPTH), 0));
	loop_init(cx);
	dt_cg_mst_ptr(cx, DT_R0, vars);
	loop_slot(cx, 2, DT_R0);
	loop_slot(cx, 0, s);
	dt_cg_mst_ptr(cx, DT_R0, t);
	loop_slot(cx, 1, DT_R0);
	dt_cg_mst_ptr(cx, DT_R0, cx->st->off_cmp);
	loop_slot(cx, 5, DT_R0);
	emit_loop(cx, CB_CLEAN);
	/* the NUL at j (< strsize: clean_put saw to it; checked for the
	 * verifier) */
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R9, (int16_t)(vars + CLV_LEN)));
	int fits = dt_as_label(cx->as);
	dt_as_jump(cx->as, BPF_JLT, DT_R0, (int32_t)ss, fits);
	EMIT(DT_MOV64_IMM(DT_R0, (int32_t)ss - 1));
	dt_as_place(cx->as, fits);
	dt_cg_mst_ptr(cx, s, t);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, s));
	EMIT(DT_STORE_IMM(BPF_B, DT_R0, 0, 0));
	return s;
}

/* The bytes lltostr(v, base) writes: 64 binary digits, a prefix, NUL;
 * written from the end of the comparison buffers, which hold that much
 * whatever strsize. */
#define DT_LLTOSTR_MAX	68
_Static_assert(DT_LLTOSTR_MAX <= DT_CG_CMP_MIN, "lltostr's digits fit");

void dt_cg_text_temp(dt_cg_t *cx, int reg, uint32_t max)
{
	uint32_t ss = cx->st->strsize, t = dt_cg_temp(cx);

	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_MOV64_IMM(DT_R2, (int32_t)(ss < max ? ss : max)));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel_str));
	dt_cg_mst_ptr(cx, reg, t);
}

/* Copy the digits lltostr wrote from r2 to a new temporary, cut at
 * strsize as every string is, and make reg point to it. */
static void lltostr_copy(dt_cg_t *cx, int reg)
{
	EMIT(DT_MOV64_REG(DT_R3, DT_R2));
	dt_cg_text_temp(cx, reg, DT_LLTOSTR_MAX);
}

/* Emit: *--r2 = c when v == imm (jump op JEQ) or v != imm (JNE). */
static void put_char_if(dt_cg_t *cx, int op, int v, int32_t imm, char c)
{
	int skip = dt_as_label(cx->as);

	dt_as_jump(cx->as, op == BPF_JEQ ? BPF_JNE : BPF_JEQ, v, imm, skip);
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R2, 1));
	EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, c));
	dt_as_place(cx->as, skip);
}

/*
 * lltostr(v, base): as DTrace writes it: base 10 signed, any other base
 * (2 to 36) unsigned, with "0x" before base 16 and "0" before base 8;
 * another base is an illegal operation.  Written backwards from the end
 * of the comparison buffer, the base kept in r0, then copied to a
 * temporary.
 */
static int cg_lltostr_base(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t buf = cx->st->off_cmp;
	int v = dt_cg_expr(cx, n->args);
	int b = dt_cg_expr(cx, n->args->next);
	int pos = dt_as_label(cx->as), done = dt_as_label(cx->as);
	int digit = dt_as_label(cx->as);

	dt_cg_fault_if(cx, BPF_JLE, b, 1, DT_FAULT_ILLOP, -1);
	dt_cg_fault_if(cx, BPF_JGT, b, 36, DT_FAULT_ILLOP, -1);
	EMIT(DT_MOV64_REG(DT_R0, b));
	/* r1 = the value to write: |v| in base 10, else v unsigned */
	EMIT(DT_MOV64_REG(DT_R1, v));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 10, pos);
	dt_as_jump(cx->as, BPF_JSGE, DT_R1, 0, pos);
	EMIT(DT_NEG64(DT_R1));
	dt_as_place(cx->as, pos);
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)(buf + DT_LLTOSTR_MAX - 1),
			  0));
	dt_cg_mst_ptr(cx, DT_R2, buf + DT_LLTOSTR_MAX - 1);
	dt_as_jump(cx->as, BPF_JEQ, DT_R1, 0, done);
	for (int i = 0; i < 64; i++) {
		int dec = dt_as_label(cx->as);

		EMIT(DT_MOV64_REG(DT_R3, DT_R1));
		EMIT(DT_ALU64_REG(BPF_MOD, DT_R3, DT_R0));
		dt_as_jump(cx->as, BPF_JLE, DT_R3, 9, dec);
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, 'a' - '0' - 10));
		dt_as_place(cx->as, dec);
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, '0'));
		EMIT(DT_ALU64_IMM(BPF_SUB, DT_R2, 1));
		EMIT(DT_STORE(BPF_B, DT_R2, 0, DT_R3));
		EMIT(DT_ALU64_REG(BPF_DIV, DT_R1, DT_R0));
		dt_as_jump(cx->as, BPF_JEQ, DT_R1, 0, done);
	}
	dt_as_place(cx->as, done);
	/* the prefixes: "0x0" for 0 in base 16, "0" for 0 or base 8 */
	dt_as_jump(cx->as, BPF_JNE, v, 0, digit);
	put_char_if(cx, BPF_JEQ, DT_R0, 16, '0');
	dt_as_place(cx->as, digit);
	put_char_if(cx, BPF_JEQ, DT_R0, 16, 'x');
	EMIT(DT_MOV64_REG(DT_R3, DT_R0));
	dt_as_jump(cx->as, BPF_JEQ, v, 0, pos = dt_as_label(cx->as));
	dt_as_jump(cx->as, BPF_JEQ, DT_R3, 16, pos);
	dt_as_jump(cx->as, BPF_JEQ, DT_R3, 8, pos);
	dt_as_jump(cx->as, BPF_JA, 0, 0, digit = dt_as_label(cx->as));
	dt_as_place(cx->as, pos);
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R2, 1));
	EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, '0'));
	dt_as_place(cx->as, digit);
	dt_as_jump(cx->as, BPF_JSGE, v, 0, done = dt_as_label(cx->as));
	put_char_if(cx, BPF_JEQ, DT_R3, 10, '-');
	dt_as_place(cx->as, done);
	dt_regs_give(cx, b);
	lltostr_copy(cx, v);
	return v;
}

/* lltostr(v): decimal, written backwards from the end of the comparison
 * buffers, then copied to a temporary (so the verifier's paths, one per digit count,
 * meet again after the copy). */
static int cg_lltostr(dt_cg_t *cx, dt_node_t *n)
{
	if (n->args->next != NULL)
		return cg_lltostr_base(cx, n);
	int v = dt_cg_expr(cx, n->args);
	uint32_t end = cx->st->off_cmp + DT_LLTOSTR_MAX - 1;
	int pos = dt_as_label(cx->as), done = dt_as_label(cx->as);
	int nosign = dt_as_label(cx->as);

	/* r1 = |v| (unsigned), r2 = the write position */
	EMIT(DT_MOV64_REG(DT_R1, v));
	dt_as_jump(cx->as, BPF_JSGE, DT_R1, 0, pos);
	EMIT(DT_NEG64(DT_R1));
	dt_as_place(cx->as, pos);
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)end, 0));
	dt_cg_mst_ptr(cx, DT_R2, end);
	for (int i = 0; i < 20; i++) {
		EMIT(DT_MOV64_REG(DT_R3, DT_R1));
		EMIT(DT_ALU64_IMM(BPF_MOD, DT_R3, 10));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, '0'));
		EMIT(DT_ALU64_IMM(BPF_SUB, DT_R2, 1));
		EMIT(DT_STORE(BPF_B, DT_R2, 0, DT_R3));
		EMIT(DT_ALU64_IMM(BPF_DIV, DT_R1, 10));
		dt_as_jump(cx->as, BPF_JEQ, DT_R1, 0, done);
	}
	dt_as_place(cx->as, done);
	dt_as_jump(cx->as, BPF_JSGE, v, 0, nosign);
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R2, 1));
	EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, '-'));
	dt_as_place(cx->as, nosign);
	lltostr_copy(cx, v);
	return v;
}

/* progenyof(pid): the current process or one of its ancestors (up to
 * DT_PROGENY_DEPTH generations) is pid. */
#define DT_PROGENY_DEPTH	32
static int cg_progenyof(dt_cg_t *cx, dt_node_t *n)
{
	int32_t parent = dt_cg_btf_offset(cx->st, "task_struct",
					  "real_parent");
	int32_t tgid = dt_cg_btf_offset(cx->st, "task_struct", "tgid");
	uint32_t scr = cx->st->off_scratch + 16;
	int p = dt_cg_expr(cx, n->args);
	int yes = dt_as_label(cx->as), done = dt_as_label(cx->as);

	if (parent < 0 || tgid < 0)
		dt_pcb_error(cx->pcb, D_IDENT_UNDEF, n->line, "progenyof( ) "
			     "needs the kernel's BTF");
	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_task));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)(scr + 8), DT_R0));
	for (int i = 0; i < DT_PROGENY_DEPTH; i++) {
		/* tgid of the task in scr + 8 */
		EMIT(DT_STORE_IMM(BPF_DW, DT_R9, (int16_t)scr, 0));
		dt_cg_mst_ptr(cx, DT_R1, scr);
		EMIT(DT_MOV64_IMM(DT_R2, 4));
		EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)(scr + 8)));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, tgid));
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
		EMIT(DT_LOAD(BPF_W, DT_R0, DT_R9, (int16_t)scr));
		dt_as_jump_reg(cx->as, BPF_JEQ, DT_R0, p, yes);
		dt_as_jump(cx->as, BPF_JEQ, DT_R0, 1, done);	/* init */
		/* up one generation */
		dt_cg_mst_ptr(cx, DT_R1, scr + 8);
		EMIT(DT_MOV64_IMM(DT_R2, 8));
		EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)(scr + 8)));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, parent));
		EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
		dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, done);
	}
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, yes);
	EMIT(DT_MOV64_IMM(p, 1));
	int end = dt_as_label(cx->as);
	dt_as_jump(cx->as, BPF_JA, 0, 0, end);
	dt_as_place(cx->as, done);
	EMIT(DT_MOV64_IMM(p, 0));
	dt_as_place(cx->as, end);
	return p;
}

/* Loop slot i = the kernel's 8 bytes at r3 + off; goto fail when they
 * cannot be read. */
static void read_kernel_slot(dt_cg_t *cx, int i, int32_t off, int fail)
{
	uint32_t scr = cx->st->off_scratch + 16;

	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R3, off));
	dt_cg_mst_ptr(cx, DT_R1, scr);
	EMIT(DT_MOV64_IMM(DT_R2, 8));
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, fail);
	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R9, (int16_t)scr));
	loop_slot(cx, i, DT_R0);
}

/* Loop slot 1 = the length of task's argument area (slots 2 and 3: its
 * start and end), at most max; goto none when task is not the current
 * thread, has no mm (a kernel thread) or an empty area. */
static void execargs_area(dt_cg_t *cx, int task, int32_t max, int none)
{
	int32_t mm = dt_cg_btf_offset(cx->st, "task_struct", "mm");
	int32_t start = dt_cg_btf_offset(cx->st, "mm_struct", "arg_start");
	int32_t end = dt_cg_btf_offset(cx->st, "mm_struct", "arg_end");
	int fit = dt_as_label(cx->as);

	EMIT(DT_CALL_HELPER(BPF_FUNC_get_current_task));
	dt_as_jump_reg(cx->as, BPF_JNE, DT_R0, task, none);
	EMIT(DT_MOV64_REG(DT_R3, task));
	read_kernel_slot(cx, 1, mm, none);
	load_slot(cx, DT_R3, 1);
	dt_as_jump(cx->as, BPF_JEQ, DT_R3, 0, none);
	read_kernel_slot(cx, 2, start, none);
	load_slot(cx, DT_R3, 1);
	read_kernel_slot(cx, 3, end, none);
	load_slot(cx, DT_R0, 3);
	load_slot(cx, DT_R1, 2);
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R0, DT_R1));
	dt_as_jump(cx->as, BPF_JSLE, DT_R0, 0, none);
	dt_as_jump(cx->as, BPF_JSLE, DT_R0, max, fit);
	EMIT(DT_MOV64_IMM(DT_R0, max));
	dt_as_place(cx->as, fit);
	loop_slot(cx, 1, DT_R0);
}

/*
 * d_execargs(task): the command line of task, its arguments joined by
 * spaces, as much as strsize holds.  It is read from the argument area
 * of task's process (mm->arg_start to arg_end), user memory which only
 * the current thread's address space maps: "" unless task is the
 * current thread, and for a kernel thread.
 */
static int cg_execargs(dt_cg_t *cx, dt_node_t *n)
{
	uint32_t t = dt_cg_temp(cx);
	int32_t max = (int32_t)cx->st->strsize - 1;
	int task = dt_cg_expr(cx, n->args);
	int none = dt_as_label(cx->as), done = dt_as_label(cx->as);

	if (dt_cg_btf_offset(cx->st, "mm_struct", "arg_end") < 0)
		dt_pcb_error(cx->pcb, D_IDENT_UNDEF, n->line, "d_execargs( ) "
			     "needs the kernel's BTF");
	loop_init(cx);
	execargs_area(cx, task, max, none);
	dt_cg_mst_ptr(cx, DT_R1, t);
	load_slot(cx, DT_R2, 1);
	dt_as_jump(cx->as, BPF_JGT, DT_R2, max, none);	/* for the verifier */
	load_slot(cx, DT_R3, 2);
	EMIT(DT_CALL_HELPER(BPF_FUNC_probe_read_user));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, none);
	load_slot(cx, DT_R2, 1);
	dt_as_jump(cx->as, BPF_JGT, DT_R2, max, none);
	dt_cg_mst_ptr(cx, DT_R1, t);
	EMIT(DT_ALU64_REG(BPF_ADD, DT_R1, DT_R2));
	EMIT(DT_STORE_IMM(BPF_B, DT_R1, 0, 0));
	EMIT(DT_ALU64_IMM(BPF_SUB, DT_R2, 1));
	loop_slot(cx, 1, DT_R2);
	dt_cg_mst_ptr(cx, DT_R1, t);
	loop_slot(cx, 0, DT_R1);
	emit_loop(cx, CB_ARGS);
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, none);
	EMIT(DT_STORE_IMM(BPF_B, DT_R9, (int16_t)t, 0));
	dt_as_place(cx->as, done);
	dt_cg_mst_ptr(cx, task, t);
	return task;
}

/* copyout() and copyoutstr() compile only without -w, where the enabling
 * is refused (dt_check_call.c): no code, a void value. */
static int cg_never_run(dt_cg_t *cx)
{
	int a = dt_regs_take(cx);

	EMIT(DT_MOV64_IMM(a, 0));
	return a;
}

int dt_cg_subr_more(dt_cg_t *cx, dt_node_t *n, dt_func_t f)
{
	switch (f) {
	case DT_F_STRCHR: return cg_strchr(cx, n, false);
	case DT_F_STRRCHR: return cg_strchr(cx, n, true);
	case DT_F_INDEX: return cg_index(cx, n, false, false);
	case DT_F_RINDEX: return cg_index(cx, n, true, false);
	case DT_F_STRSTR: return cg_index(cx, n, false, true);
	case DT_F_TOUPPER: return cg_case(cx, n, false);
	case DT_F_TOLOWER: return cg_case(cx, n, true);
	case DT_F_BASENAME: return cg_path(cx, n, false);
	case DT_F_DIRNAME: return cg_path(cx, n, true);
	case DT_F_SUBSTR: return cg_substr(cx, n);
	case DT_F_STRTOK: return cg_strtok(cx, n);
	case DT_F_CLEANPATH: return cg_cleanpath(cx, n);
	case DT_F_LLTOSTR: return cg_lltostr(cx, n);
	case DT_F_PROGENYOF: return cg_progenyof(cx, n);
	case DT_F_EXECARGS: return cg_execargs(cx, n);
	case DT_F_D_PATH: return dt_cg_d_path(cx, n);
	case DT_F_HTONS: case DT_F_NTOHS: return dt_cg_byteorder(cx, n, 16);
	case DT_F_HTONL: case DT_F_NTOHL: return dt_cg_byteorder(cx, n, 32);
	case DT_F_HTONLL: case DT_F_NTOHLL: return dt_cg_byteorder(cx, n, 64);
	case DT_F_INET_NTOA: return dt_cg_inet_ntoa(cx, n);
	case DT_F_INET_NTOP: return dt_cg_inet_ntop(cx, n);
	case DT_F_INET_NTOA6: return dt_cg_inet_ntoa6(cx, n);
	case DT_F_LINK_NTOP: return dt_cg_link_ntop(cx, n);
	case DT_F_SPECULATION: return dt_cg_speculation(cx);
	case DT_F_COPYOUT: case DT_F_COPYOUTSTR: return cg_never_run(cx);
	default: dt_cg_ice(cx, "subroutine");
	}
}
