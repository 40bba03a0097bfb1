/* SPDX-License-Identifier: MIT */
/*
 * test_opt.c: dt_opt_function() (dt_opt.c) on functions shaped as the code
 * generator makes them: the prefilter's copy of an argument read back from
 * the context and its dead code dropped, and what must stay: values a call
 * may change or read, stack a helper is given, memory through a pointer
 * not known, paths that disagree, values a jump tested, moves of numbers,
 * stores outside the frame, code not understood, and the function's end
 * at the next subprogram; helpers that leave the stack alone, and a word
 * read back at once from where it was stored; then the truths its exits
 * return, where known (dt_opt_exit_truths()), and the values made past
 * the last call moved to caller-saved registers
 * (dt_opt_caller_saved_tail()).
 */
#include <string.h>

#include "dt_as.h"
#include "dt_opt.h"
#include "unit_check.h"

#define NOP	DT_INSN(BPF_JMP | BPF_JA, 0, 0, 0, 0)
#define GOTO(o)	DT_INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define JSLT0(r, o) DT_INSN(BPF_JMP | BPF_JSLT | BPF_K, r, 0, o, 0)
#define JNE0(r, o) DT_INSN(BPF_JMP | BPF_JNE | BPF_K, r, 0, o, 0)
#define JGT(r, i, o) DT_INSN(BPF_JMP | BPF_JGT | BPF_K, r, 0, o, i)
#define ADD(r, i) DT_ALU64_IMM(BPF_ADD, r, i)
#define LDDW(d, s, o) DT_LOAD(BPF_DW, d, s, o)
#define STDW(d, o, s) DT_STORE(BPF_DW, d, o, s)
#define CALL_SUB(o) DT_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, o)

typedef int opt_pass_t(dt_as_t *as, uint32_t start, bool ctx_in_r1);

/* Run pass at start over n instructions (r1: the context); check the
 * result against want (n of them) and the count of changes. */
static void check_pass(opt_pass_t *pass, const struct bpf_insn *code,
		       uint32_t n, uint32_t start,
		       const struct bpf_insn *want, int changes, int line)
{
	dt_as_t as;

	dt_as_init(&as);
	for (uint32_t i = 0; i < n; i++)
		dt_as_emit(&as, code[i]);
	CHECK(dt_as_finish(&as) == 0);
	int got = pass(&as, start, true);
	if (got != changes) {
		fprintf(stderr, "line %d: %d changes, not %d\n", line, got,
			changes);
		failures++;
	}
	for (uint32_t i = 0; i < n; i++) {
		char a[128], b[128];
		if (memcmp(&as.insns[i], &want[i], sizeof(want[i])) == 0)
			continue;
		dt_dis_insn(a, sizeof(a), as.insns, i, n);
		dt_dis_insn(b, sizeof(b), want, i, n);
		fprintf(stderr, "line %d: %u: %s, not %s\n", line, i, a, b);
		failures++;
	}
	dt_as_fini(&as);
}

#define CHECK_OPT(code, start, want, changes) \
	check_pass(dt_opt_function, code, sizeof(code) / sizeof(code[0]), \
		   start, want, changes, __LINE__)
#define CHECK_TAIL(code, want, changes) \
	check_pass(dt_opt_caller_saved_tail, code, \
		   sizeof(code) / sizeof(code[0]), 0, want, changes, __LINE__)

/* The prefilter of /arg0 < 0/ on a pid entry probe: the trampoline
 * copies arg0 (di) and the pc to the copy at fp - 200, the predicate's
 * prologue spills the context and clears its registers, and the predicate
 * reads arg0 back.  What is left reads di where the predicate tests it,
 * from r1, which held the context all along (r1 = r6 moved it back). */
static void test_prefilter(void)
{
	const struct bpf_insn code[] = {
		DT_MOV64_REG(DT_R6, DT_R1),
		DT_MOV64_REG(DT_R7, DT_FP),
		ADD(DT_R7, -200),
		DT_STORE_IMM(BPF_DW, DT_R7, 0, 0),
		LDDW(DT_R0, DT_R6, 112),
		STDW(DT_R7, 0, DT_R0),
		LDDW(DT_R0, DT_R6, 128),
		STDW(DT_R7, 88, DT_R0),
		DT_MOV64_IMM(DT_R0, 0),
		DT_MOV64_REG(DT_R1, DT_R6),
		DT_MOV64_REG(DT_R2, DT_R7),
		STDW(DT_FP, -8, DT_R1),
		DT_MOV64_REG(DT_R9, DT_R2),
		DT_MOV64_IMM(DT_R6, 0),
		DT_MOV64_IMM(DT_R7, 0),
		DT_MOV64_IMM(DT_R8, 0),
		LDDW(DT_R6, DT_R9, 0),
		JSLT0(DT_R6, 2),
		DT_MOV64_IMM(DT_R6, 0),
		GOTO(1),
		DT_MOV64_IMM(DT_R6, 1),
		DT_MOV64_REG(DT_R0, DT_R6),
		DT_EXIT(),
	};
	const struct bpf_insn want[] = {
		NOP, NOP, NOP, NOP, NOP, NOP, NOP, NOP, NOP, NOP,
		NOP, NOP, NOP, NOP, NOP, NOP,
		LDDW(DT_R6, DT_R1, 112),
		JSLT0(DT_R6, 2),
		DT_MOV64_IMM(DT_R6, 0),
		GOTO(1),
		DT_MOV64_IMM(DT_R6, 1),
		DT_MOV64_REG(DT_R0, DT_R6),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, want, 17);
}

/* A call between the copy and its reading back may change either: the
 * load stays, and so does the store it reads. */
static void test_call_between(void)
{
	const struct bpf_insn code[] = {
		LDDW(DT_R6, DT_R1, 112),
		STDW(DT_FP, -16, DT_R6),
		DT_MOV64_REG(DT_R1, DT_FP),
		ADD(DT_R1, -32),
		DT_MOV64_IMM(DT_R2, 16),
		DT_CALL_HELPER(BPF_FUNC_get_current_comm),
		LDDW(DT_R0, DT_FP, -16),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, code, 0);
}

/* A helper given no pointer that may reach the stack leaves the stack and
 * the context alone: the copy is read from the context after it, through
 * a register the call kept. */
static void test_plain_helper(void)
{
	const struct bpf_insn code[] = {
		DT_MOV64_REG(DT_R6, DT_R1),
		LDDW(DT_R0, DT_R6, 112),
		STDW(DT_FP, -16, DT_R0),
		DT_CALL_HELPER(BPF_FUNC_ktime_get_ns),
		LDDW(DT_R0, DT_FP, -16),
		DT_EXIT(),
	};
	const struct bpf_insn want[] = {
		DT_MOV64_REG(DT_R6, DT_R1),
		NOP,
		NOP,
		DT_CALL_HELPER(BPF_FUNC_ktime_get_ns),
		LDDW(DT_R0, DT_R6, 112),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, want, 3);
}

/* The USDT prefilter's attach cookie, stored into the key and read back
 * at once: the load moves the word from the register (zero-extended, as
 * the load would), the store goes, and so do the frame's address and
 * the copy's first argument, which the helper cannot read. */
static void test_store_read_back(void)
{
	const struct bpf_insn code[] = {
		DT_MOV64_REG(DT_R6, DT_R1),
		DT_MOV64_REG(DT_R7, DT_FP),
		ADD(DT_R7, -200),
		DT_STORE_IMM(BPF_DW, DT_R7, 0, 0),
		DT_CALL_HELPER(BPF_FUNC_get_attach_cookie),
		DT_STORE(BPF_W, DT_R7, 84, DT_R0),
		DT_LOAD(BPF_W, DT_R1, DT_R7, 84),
		JNE0(DT_R1, 2),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R0, 1),
		DT_EXIT(),
	};
	const struct bpf_insn want[] = {
		NOP, NOP, NOP, NOP,
		DT_CALL_HELPER(BPF_FUNC_get_attach_cookie),
		NOP,
		DT_INSN(BPF_ALU | BPF_MOV | BPF_X, DT_R1, DT_R0, 0, 0),
		JNE0(DT_R1, 2),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R0, 1),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, want, 6);
}

/* What is not read back so: a load a jump lands on (the other path
 * stored nothing), and a half word (the move would not truncate it). */
static void test_store_not_read_back(void)
{
	const struct bpf_insn jumped[] = {
		DT_MOV64_IMM(DT_R0, 0),
		DT_STORE(BPF_DW, DT_FP, -8, DT_R0),
		JNE0(DT_R1, 1),
		DT_STORE(BPF_DW, DT_FP, -8, DT_R1),
		DT_LOAD(BPF_DW, DT_R0, DT_FP, -8),
		DT_EXIT(),
	};
	const struct bpf_insn half[] = {
		DT_STORE(BPF_H, DT_FP, -8, DT_R1),
		DT_LOAD(BPF_H, DT_R0, DT_FP, -8),
		DT_EXIT(),
	};
	CHECK_OPT(jumped, 0, jumped, 0);
	CHECK_OPT(half, 0, half, 0);
}

/* Stack given to a helper is read by it: stores into it stay, though no
 * load of this function reads them. */
static void test_stack_to_helper(void)
{
	const struct bpf_insn code[] = {
		LDDW(DT_R0, DT_R1, 112),
		STDW(DT_FP, -16, DT_R0),
		DT_MOV64_REG(DT_R1, DT_FP),
		ADD(DT_R1, -16),
		DT_MOV64_IMM(DT_R2, 8),
		DT_MOV64_IMM(DT_R3, 0),
		DT_CALL_HELPER(BPF_FUNC_probe_read_kernel),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, code, 0);
}

/* A load through a pointer not known (here one loaded from the context)
 * may read the stack: the store before it stays. */
static void test_unknown_pointer(void)
{
	const struct bpf_insn code[] = {
		LDDW(DT_R2, DT_R1, 112),
		STDW(DT_FP, -8, DT_R2),
		LDDW(DT_R0, DT_R2, 0),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, code, 0);
}

/* Two paths, taken as si is 0 or not, that store the words of the
 * context at off_a and off_b in the same slot, read back after they meet;
 * code has 9 instructions. */
static void two_paths(struct bpf_insn *code, int16_t off_a, int16_t off_b)
{
	const struct bpf_insn c[] = {
		LDDW(DT_R2, DT_R1, 104),
		JNE0(DT_R2, 3),
		LDDW(DT_R3, DT_R1, off_a),
		STDW(DT_FP, -8, DT_R3),
		GOTO(2),
		LDDW(DT_R4, DT_R1, off_b),
		STDW(DT_FP, -8, DT_R4),
		LDDW(DT_R0, DT_FP, -8),
		DT_EXIT(),
	};
	memcpy(code, c, sizeof(c));
}

/* Paths that store different words: the load after they meet stays as
 * it is. */
static void test_paths_disagree(void)
{
	struct bpf_insn code[9];

	two_paths(code, 112, 96);
	CHECK_OPT(code, 0, code, 0);
}

/* The same word stored on both paths is read from the context, once the
 * paths meet; the stores and the loads that fed them go. */
static void test_paths_agree(void)
{
	struct bpf_insn code[9];
	const struct bpf_insn want[] = {
		LDDW(DT_R2, DT_R1, 104),
		JNE0(DT_R2, 3),
		NOP, NOP,
		GOTO(2),
		NOP, NOP,
		LDDW(DT_R0, DT_R1, 112),
		DT_EXIT(),
	};

	two_paths(code, 112, 112);
	CHECK_OPT(code, 0, want, 5);
}

/* A value tested by a conditional jump is not loaded again from the
 * context: the verifier knows its bounds from the test, and would not
 * know them of a new load.  Read back at once from where it was stored,
 * it is moved from its register, whose bounds the move keeps. */
static void test_tested_value(void)
{
	const struct bpf_insn code[] = {
		LDDW(DT_R2, DT_R1, 112),
		JGT(DT_R2, 10, 4),
		STDW(DT_FP, -8, DT_R2),
		DT_MOV64_REG(DT_R3, DT_FP),
		LDDW(DT_R0, DT_R3, -8),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	const struct bpf_insn stored[] = {
		LDDW(DT_R2, DT_R1, 112),
		JGT(DT_R2, 10, 3),
		STDW(DT_FP, -8, DT_R2),
		LDDW(DT_R0, DT_FP, -8),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	const struct bpf_insn moved[] = {
		LDDW(DT_R2, DT_R1, 112),
		JGT(DT_R2, 10, 3),
		NOP,
		DT_MOV64_REG(DT_R0, DT_R2),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, code, 0);
	CHECK_OPT(stored, 0, moved, 2);
}

/* A move between two registers that hold the same number (loaded from
 * the same place) stays, for what the verifier may know of either; the
 * load it overwrites goes. */
static void test_number_moved(void)
{
	const struct bpf_insn code[] = {
		LDDW(DT_R2, DT_R1, 112),
		LDDW(DT_R3, DT_R1, 112),
		DT_MOV64_REG(DT_R2, DT_R3),
		DT_MOV64_REG(DT_R0, DT_R2),
		DT_EXIT(),
	};
	const struct bpf_insn want[] = {
		NOP,
		LDDW(DT_R3, DT_R1, 112),
		DT_MOV64_REG(DT_R2, DT_R3),
		DT_MOV64_REG(DT_R0, DT_R2),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, want, 1);
}

/* Stores outside the frame, and a map load, are kept whatever uses them;
 * dead arithmetic goes. */
static void test_effects_kept(void)
{
	const struct bpf_insn code[] = {
		DT_LD_IMM64_LO(DT_R2, 0, 7),
		DT_LD_IMM64_HI(0),
		DT_MOV64_IMM(DT_R3, 5),
		DT_STORE(BPF_DW, DT_R1, 0, DT_R3),
		DT_ALU64_IMM(BPF_MUL, DT_R3, 3),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	const struct bpf_insn want[] = {
		DT_LD_IMM64_LO(DT_R2, 0, 7),
		DT_LD_IMM64_HI(0),
		DT_MOV64_IMM(DT_R3, 5),
		DT_STORE(BPF_DW, DT_R1, 0, DT_R3),
		NOP,
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, want, 1);
}

/* An instruction of a form the pass does not know leaves the function
 * alone. */
static void test_not_understood(void)
{
	const struct bpf_insn code[] = {
		DT_MOV64_IMM(DT_R3, 5),
		DT_INSN(BPF_LD | BPF_ABS | BPF_W, 0, 0, 0, 0),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, code, 0);
}

/* The function ends where the next subprogram starts: the subprogram's
 * dead code is not this function's to drop, and the call, which may read
 * the stack and r1 to r5, keeps the store before it. */
static void test_function_end(void)
{
	const struct bpf_insn code[] = {
		DT_MOV64_IMM(DT_R6, 5),		/* dead */
		STDW(DT_FP, -8, DT_R1),
		CALL_SUB(2),
		DT_EXIT(),
		DT_EXIT(),			/* unreached */
		DT_MOV64_IMM(DT_R3, 5),		/* the subprogram: dead */
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	const struct bpf_insn want[] = {
		NOP,
		STDW(DT_FP, -8, DT_R1),
		CALL_SUB(2),
		DT_EXIT(),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R3, 5),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	CHECK_OPT(code, 0, want, 1);
}

/* An exit returns a known truth when the instruction before sets r0 to a
 * number and no jump lands on it; a 64-bit load's second half is not
 * taken for such a move. */
static void test_exit_truths(void)
{
	const struct bpf_insn code[] = {
		JSLT0(DT_R2, 2),		/* to the move before 0 */
		DT_MOV64_IMM(DT_R0, 7),
		DT_EXIT(),			/* 1 */
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),			/* 0 */
		JNE0(DT_R3, 1),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),			/* jumped to: not known */
		DT_MOV64_REG(DT_R0, DT_R3),
		DT_EXIT(),			/* a register: not known */
	};
	const int8_t want[] = { -1, -1, 1, -1, 0, -1, -1, -1, -1, -1, -1,
				-1, -1 };
	dt_as_t as;
	int8_t truth[sizeof(want)];

	dt_as_init(&as);
	for (uint32_t i = 0; i < sizeof(code) / sizeof(code[0]); i++)
		dt_as_emit(&as, code[i]);
	dt_as_ld_imm64(&as, DT_R0, 0);
	dt_as_emit(&as, DT_EXIT());	/* after a 64-bit load: not known */
	CHECK(dt_as_finish(&as) == 0);
	CHECK(as.ninsns == sizeof(want));
	dt_opt_exit_truths(&as, truth);
	for (uint32_t i = 0; i < sizeof(want); i++)
		if (truth[i] != want[i]) {
			fprintf(stderr, "exit truths: %u: %d, not %d\n", i,
				truth[i], want[i]);
			failures++;
		}
	dt_as_fini(&as);
}

#define CALL_COOKIE DT_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, \
			    BPF_FUNC_get_attach_cookie)

/* The USDT prefilter's shape: the context kept in r6 across the cookie's
 * helper, read once more after it, then r6 reused for the argument.  The
 * argument moves to r2 (r1 is still read there), and r6 then holds the
 * context all through. */
static void test_tail_moved(void)
{
	const struct bpf_insn code[] = {
		DT_MOV64_REG(DT_R6, DT_R1),
		CALL_COOKIE,
		JNE0(DT_R0, 5),			/* to the pass path */
		DT_MOV64_REG(DT_R1, DT_R6),
		LDDW(DT_R6, DT_R1, 80),
		JSLT0(DT_R6, 2),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R0, 1),		/* the predicate holds */
		DT_EXIT(),
	};
	struct bpf_insn want[sizeof(code) / sizeof(code[0])];

	memcpy(want, code, sizeof(code));
	want[4] = LDDW(DT_R2, DT_R1, 80);
	want[5] = JSLT0(DT_R2, 2);
	CHECK_TAIL(code, want, 1);
}

/* What stays: a value made before the call and read after it, a register
 * live where a jump from before the call lands, a function with a jump
 * backwards, and one that leaves no caller-saved register free. */
static void test_tail_kept(void)
{
	const struct bpf_insn across[] = {
		LDDW(DT_R7, DT_R1, 80),
		CALL_COOKIE,
		JSLT0(DT_R7, 2),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
		DT_MOV64_IMM(DT_R0, 1),
		DT_EXIT(),
	};
	const struct bpf_insn jumped_in[] = {
		LDDW(DT_R7, DT_R1, 80),
		JSLT0(DT_R7, 3),		/* into the tail, r7 live */
		CALL_COOKIE,
		LDDW(DT_R7, DT_R6, 80),
		JSLT0(DT_R7, 1),
		DT_MOV64_REG(DT_R0, DT_R7),
		DT_EXIT(),
	};
	const struct bpf_insn backwards[] = {
		DT_MOV64_REG(DT_R6, DT_R1),
		CALL_COOKIE,
		LDDW(DT_R7, DT_R6, 80),
		JSLT0(DT_R7, -2),
		DT_MOV64_IMM(DT_R0, 0),
		DT_EXIT(),
	};
	const struct bpf_insn all_free[] = {
		DT_MOV64_REG(DT_R6, DT_R1),
		LDDW(DT_R2, DT_R6, 80),
		LDDW(DT_R3, DT_R6, 88),
		LDDW(DT_R4, DT_R6, 96),
		LDDW(DT_R5, DT_R6, 104),
		LDDW(DT_R7, DT_R6, 112),
		DT_ALU64_REG(BPF_ADD, DT_R7, DT_R2),
		DT_ALU64_REG(BPF_ADD, DT_R7, DT_R3),
		DT_ALU64_REG(BPF_ADD, DT_R7, DT_R4),
		DT_ALU64_REG(BPF_ADD, DT_R7, DT_R5),
		DT_MOV64_REG(DT_R0, DT_R7),
		DT_EXIT(),
	};

	CHECK_TAIL(across, across, 0);
	CHECK_TAIL(jumped_in, jumped_in, 0);
	CHECK_TAIL(backwards, backwards, 0);
	/* No call, and no register of r2 to r5 left free. */
	CHECK_TAIL(all_free, all_free, 0);
}

int main(void)
{
	test_prefilter();
	test_call_between();
	test_plain_helper();
	test_store_read_back();
	test_store_not_read_back();
	test_stack_to_helper();
	test_unknown_pointer();
	test_paths_disagree();
	test_paths_agree();
	test_tested_value();
	test_number_moved();
	test_effects_kept();
	test_not_understood();
	test_function_end();
	test_exit_truths();
	test_tail_moved();
	test_tail_kept();
	return failures ? 1 : 0;
}
