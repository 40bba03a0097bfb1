/* SPDX-License-Identifier: MIT */
/*
 * dtrace/bpf.h: constructors for eBPF instructions.
 *
 * The kernel keeps its instruction macros in a private header, so the engine
 * and every provider plugin build instructions with these.  Each macro is an
 * expression of type struct bpf_insn, to be handed to the host's emit().
 * Jumps to labels are not built here: use the host's jump(), which patches
 * the offset once the label is placed.
 */
#ifndef DTRACE_BPF_H
#define DTRACE_BPF_H

#include <linux/bpf.h>

#ifdef __cplusplus
extern "C" {
/* C++ has no compound literals: the same instruction from a function. */
static inline struct bpf_insn dt_insn_cxx(int code, int dst, int src, int off,
					  int imm)
{
	struct bpf_insn insn = {};

	insn.code = (__u8)code;
	insn.dst_reg = (__u8)(dst & 0xf);
	insn.src_reg = (__u8)(src & 0xf);
	insn.off = (__s16)off;
	insn.imm = (__s32)imm;
	return insn;
}
#define DT_INSN(c, d, s, o, i)	dt_insn_cxx((c), (d), (s), (o), (i))
#else
#define DT_INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
			    .off = (o), .imm = (i) })
#endif

/* dst op= src, 64 bit; op is BPF_ADD, BPF_SUB, BPF_MUL, ... */
#define DT_ALU64_REG(op, d, s)	DT_INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define DT_ALU64_IMM(op, d, i)	DT_INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
/* 32-bit forms: the result is zero-extended to 64 bits */
#define DT_ALU32_REG(op, d, s)	DT_INSN(BPF_ALU | (op) | BPF_X, d, s, 0, 0)
#define DT_ALU32_IMM(op, d, i)	DT_INSN(BPF_ALU | (op) | BPF_K, d, 0, 0, i)

#define DT_MOV64_REG(d, s)	DT_ALU64_REG(BPF_MOV, d, s)
#define DT_MOV64_IMM(d, i)	DT_ALU64_IMM(BPF_MOV, d, i)
#define DT_MOV32_REG(d, s)	DT_ALU32_REG(BPF_MOV, d, s)
#define DT_NEG64(d)		DT_INSN(BPF_ALU64 | BPF_NEG, d, 0, 0, 0)

/* dst = *(size *)(src + off); size is BPF_B, BPF_H, BPF_W or BPF_DW */
#define DT_LOAD(sz, d, s, o)	DT_INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
/* *(size *)(dst + off) = src */
#define DT_STORE(sz, d, o, s)	DT_INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
/* *(size *)(dst + off) = imm */
#define DT_STORE_IMM(sz, d, o, i) DT_INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
/* lock *(size *)(dst + off) += src; size BPF_W or BPF_DW */
#define DT_XADD(sz, d, o, s)	DT_INSN(BPF_STX | BPF_ATOMIC | (sz), d, s, o, BPF_ADD)

#define DT_CALL_HELPER(fn)	DT_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, fn)
#define DT_EXIT()		DT_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* The two halves of a 64-bit immediate load: always emit both, in order. */
#define DT_LD_IMM64_LO(d, src, v) \
	DT_INSN(BPF_LD | BPF_DW | BPF_IMM, d, src, 0, (__s32)(__u32)(__u64)(v))
#define DT_LD_IMM64_HI(v) \
	DT_INSN(0, 0, 0, 0, (__s32)(__u32)((__u64)(v) >> 32))

/* BPF register names, for readability at call sites. */
enum {
	DT_R0, DT_R1, DT_R2, DT_R3, DT_R4, DT_R5,
	DT_R6, DT_R7, DT_R8, DT_R9, DT_FP
};

#ifdef __cplusplus
}
#endif

#endif /* DTRACE_BPF_H */
