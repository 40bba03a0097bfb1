/* SPDX-License-Identifier: MIT */
/*
 * dt_dis.c: the BPF disassembler behind dtrace -S and the tests.
 *
 * One instruction a line, prefixed with its index, in the notation of the
 * kernel's verifier log: "r1 = *(u64 *)(r7 + 8)", "w2 += 5",
 * "if r1 == 0x0 goto 0020" (jump targets are absolute indices), "call
 * bpf_map_lookup_elem", "call pc+12" (BPF-to-BPF), "r1 = map[mstate]".
 *
 * Invariants: every input is printable.  An instruction this file does not
 * understand, or one whose registers are out of range, prints as its raw
 * bytes; a 64-bit load whose second half is missing prints as raw too.
 * Nothing is read outside insns[0 .. n).
 */
#include <stdio.h>
#include <string.h>

#include "dt_as.h"

/* Helper names, indexed by helper id, from the kernel's own list. */
#define DT_HELPER_NAME(x)	"bpf_" #x
static const char *const helper_names[] = {
	__BPF_FUNC_MAPPER(DT_HELPER_NAME)
};
#undef DT_HELPER_NAME

typedef const char *(*dt_mapname_f)(void *arg, uint32_t insn);

static const char *alu_op(int op)
{
	switch (op) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_MOD: return "%=";
	case BPF_XOR: return "^=";
	case BPF_MOV: return "=";
	case BPF_ARSH: return "s>>=";
	default: return NULL;
	}
}

static const char *jmp_op(int op)
{
	switch (op) {
	case BPF_JEQ: return "==";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JSET: return "&";
	case BPF_JNE: return "!=";
	case BPF_JSGT: return "s>";
	case BPF_JSGE: return "s>=";
	case BPF_JLT: return "<";
	case BPF_JLE: return "<=";
	case BPF_JSLT: return "s<";
	case BPF_JSLE: return "s<=";
	default: return NULL;
	}
}

static const char *size_name(int size, bool sign)
{
	switch (size) {
	case BPF_B: return sign ? "s8" : "u8";
	case BPF_H: return sign ? "s16" : "u16";
	case BPF_W: return sign ? "s32" : "u32";
	default: return sign ? "s64" : "u64";
	}
}

static int raw(char *buf, size_t len, const struct bpf_insn *in)
{
	const unsigned char *b = (const unsigned char *)in;

	snprintf(buf, len, "raw %02x %02x %02x %02x %02x %02x %02x %02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
	return 1;
}

/* "(r7 + 8)", "(r10 - 16)" */
static void mem_operand(char *buf, size_t len, int reg, int off)
{
	if (off < 0)
		snprintf(buf, len, "(r%d - %d)", reg, -off);
	else
		snprintf(buf, len, "(r%d + %d)", reg, off);
}

static int dis_alu(char *buf, size_t len, const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	char r = is64 ? 'r' : 'w';
	int op = BPF_OP(in->code);
	bool x = BPF_SRC(in->code) == BPF_X;

	if (op == BPF_NEG) {
		snprintf(buf, len, "%c%d = -%c%d", r, in->dst_reg, r,
			 in->dst_reg);
		return 1;
	}
	if (op == BPF_END) {
		/* BPF_ALU: to le/be by the source bit; BPF_ALU64: bswap. */
		const char *kind = is64 ? "bswap" : x ? "be" : "le";
		if (in->imm != 16 && in->imm != 32 && in->imm != 64)
			return raw(buf, len, in);
		snprintf(buf, len, "r%d = %s%d r%d", in->dst_reg, kind, in->imm,
			 in->dst_reg);
		return 1;
	}
	const char *sym = alu_op(op);
	if (sym == NULL)
		return raw(buf, len, in);
	/* Signed division and modulo (off 1), sign-extending moves (off 8, 16
	 * or 32) */
	if ((op == BPF_DIV || op == BPF_MOD) && in->off == 1)
		sym = op == BPF_DIV ? "s/=" : "s%=";
	else if (op == BPF_MOV && x && in->off != 0) {
		if (in->off != 8 && in->off != 16 && in->off != 32)
			return raw(buf, len, in);
		snprintf(buf, len, "%c%d = (s%d)%c%d", r, in->dst_reg, in->off,
			 r, in->src_reg);
		return 1;
	} else if (in->off != 0)
		return raw(buf, len, in);
	if (x)
		snprintf(buf, len, "%c%d %s %c%d", r, in->dst_reg, sym, r,
			 in->src_reg);
	else
		snprintf(buf, len, "%c%d %s %d", r, in->dst_reg, sym, in->imm);
	return 1;
}

static int dis_ldx(char *buf, size_t len, const struct bpf_insn *in)
{
	int mode = BPF_MODE(in->code);
	char mem[32];

	if (mode != BPF_MEM && mode != 0x80 /* BPF_MEMSX */)
		return raw(buf, len, in);
	mem_operand(mem, sizeof(mem), in->src_reg, in->off);
	snprintf(buf, len, "r%d = *(%s *)%s", in->dst_reg,
		 size_name(BPF_SIZE(in->code), mode != BPF_MEM), mem);
	return 1;
}

static int dis_st(char *buf, size_t len, const struct bpf_insn *in)
{
	char mem[32];

	if (BPF_MODE(in->code) != BPF_MEM)
		return raw(buf, len, in);
	mem_operand(mem, sizeof(mem), in->dst_reg, in->off);
	snprintf(buf, len, "*(%s *)%s = %d",
		 size_name(BPF_SIZE(in->code), false), mem, in->imm);
	return 1;
}

static const char *atomic_name(int op)
{
	switch (op) {
	case BPF_ADD: return "add";
	case BPF_AND: return "and";
	case BPF_OR: return "or";
	case BPF_XOR: return "xor";
	default: return NULL;
	}
}

static int dis_atomic(char *buf, size_t len, const struct bpf_insn *in)
{
	int size = BPF_SIZE(in->code);
	const char *ty = size_name(size, false);
	char mem[32];
	char r = size == BPF_DW ? 'r' : 'w';
	const char *bits = size == BPF_DW ? "64" : "";

	if (size != BPF_W && size != BPF_DW)
		return raw(buf, len, in);
	mem_operand(mem, sizeof(mem), in->dst_reg, in->off);
	if (in->imm == BPF_XCHG) {
		snprintf(buf, len, "%c%d = atomic%s_xchg((%s *)%s, %c%d)", r,
			 in->src_reg, bits, ty, mem, r, in->src_reg);
		return 1;
	}
	if (in->imm == BPF_CMPXCHG) {
		snprintf(buf, len, "r0 = atomic%s_cmpxchg((%s *)%s, r0, %c%d)",
			 bits, ty, mem, r, in->src_reg);
		return 1;
	}
	const char *name = atomic_name(in->imm & ~BPF_FETCH);
	if (name == NULL)
		return raw(buf, len, in);
	if (in->imm & BPF_FETCH)
		snprintf(buf, len, "%c%d = atomic%s_fetch_%s((%s *)%s, %c%d)",
			 r, in->src_reg, bits, name, ty, mem, r, in->src_reg);
	else
		snprintf(buf, len, "lock *(%s *)%s %s= %c%d", ty, mem,
			 in->imm == BPF_ADD ? "+" : in->imm == BPF_AND ? "&"
			 : in->imm == BPF_OR ? "|" : "^", r, in->src_reg);
	return 1;
}

static int dis_stx(char *buf, size_t len, const struct bpf_insn *in)
{
	char mem[32];

	if (BPF_MODE(in->code) == BPF_ATOMIC)
		return dis_atomic(buf, len, in);
	if (BPF_MODE(in->code) != BPF_MEM)
		return raw(buf, len, in);
	mem_operand(mem, sizeof(mem), in->dst_reg, in->off);
	snprintf(buf, len, "*(%s *)%s = r%d",
		 size_name(BPF_SIZE(in->code), false), mem, in->src_reg);
	return 1;
}

/* The 64-bit immediate load (two slots) and the legacy packet loads. */
static int dis_ld(char *buf, size_t len, const struct bpf_insn *insns,
		  uint32_t i, uint32_t n, dt_mapname_f mapname, void *arg)
{
	const struct bpf_insn *in = &insns[i];
	int mode = BPF_MODE(in->code);

	if (mode == BPF_ABS || mode == BPF_IND) {
		const char *ty = size_name(BPF_SIZE(in->code), false);
		if (mode == BPF_ABS)
			snprintf(buf, len, "r0 = *(%s *)skb[%d]", ty, in->imm);
		else
			snprintf(buf, len, "r0 = *(%s *)skb[r%d + %d]", ty,
				 in->src_reg, in->imm);
		return 1;
	}
	if (in->code != (BPF_LD | BPF_IMM | BPF_DW) || i + 1 >= n ||
	    insns[i + 1].code != 0)
		return raw(buf, len, in);
	uint64_t v = (uint32_t)in->imm |
		     ((uint64_t)(uint32_t)insns[i + 1].imm << 32);
	const char *name = mapname ? mapname(arg, i) : NULL;
	switch (in->src_reg) {
	case 0:
		snprintf(buf, len, "r%d = 0x%llx ll", in->dst_reg,
			 (unsigned long long)v);
		break;
	case BPF_PSEUDO_MAP_FD:
		if (name != NULL)
			snprintf(buf, len, "r%d = map[%s]", in->dst_reg, name);
		else
			snprintf(buf, len, "r%d = map[fd %d]", in->dst_reg,
				 in->imm);
		break;
	case BPF_PSEUDO_MAP_VALUE:
		if (name != NULL)
			snprintf(buf, len, "r%d = map[%s] + %d", in->dst_reg,
				 name, insns[i + 1].imm);
		else
			snprintf(buf, len, "r%d = map[fd %d] + %d",
				 in->dst_reg, in->imm, insns[i + 1].imm);
		break;
	case BPF_PSEUDO_FUNC:
		snprintf(buf, len, "r%d = func %04lld", in->dst_reg,
			 (long long)i + 1 + in->imm);
		break;
	default:
		snprintf(buf, len, "r%d = 0x%llx ll (pseudo %d)", in->dst_reg,
			 (unsigned long long)v, in->src_reg);
		break;
	}
	return 2;
}

static int dis_call(char *buf, size_t len, const struct bpf_insn *in)
{
	size_t nhelpers = sizeof(helper_names) / sizeof(helper_names[0]);

	if (in->src_reg == BPF_PSEUDO_CALL)
		snprintf(buf, len, "call pc%+d", in->imm);
	else if (in->src_reg == BPF_PSEUDO_KFUNC_CALL)
		snprintf(buf, len, "call kfunc#%d", in->imm);
	else if (in->src_reg != 0)
		return raw(buf, len, in);
	else if (in->imm > 0 && (size_t)in->imm < nhelpers)
		snprintf(buf, len, "call %s", helper_names[in->imm]);
	else
		snprintf(buf, len, "call helper#%d", in->imm);
	return 1;
}

static int dis_jmp(char *buf, size_t len, const struct bpf_insn *in,
		   uint32_t i)
{
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32;
	int op = BPF_OP(in->code);
	long long target = (long long)i + 1 + in->off;

	if (op == BPF_CALL && !is32)
		return dis_call(buf, len, in);
	if (op == BPF_EXIT && !is32) {
		snprintf(buf, len, "exit");
		return 1;
	}
	if (op == BPF_JA) {
		/* BPF_JMP32 | BPF_JA is "gotol": the offset is in imm */
		if (is32)
			target = (long long)i + 1 + in->imm;
		snprintf(buf, len, "goto %04lld", target);
		return 1;
	}
	const char *sym = jmp_op(op);
	if (sym == NULL)
		return raw(buf, len, in);
	char r = is32 ? 'w' : 'r';
	if (BPF_SRC(in->code) == BPF_X)
		snprintf(buf, len, "if %c%d %s %c%d goto %04lld", r,
			 in->dst_reg, sym, r, in->src_reg, target);
	else
		snprintf(buf, len, "if %c%d %s 0x%x goto %04lld", r,
			 in->dst_reg, sym, (uint32_t)in->imm, target);
	return 1;
}

static int dis_one(char *buf, size_t len, const struct bpf_insn *insns,
		   uint32_t i, uint32_t n, dt_mapname_f mapname, void *arg)
{
	const struct bpf_insn *in = &insns[i];

	if (len == 0)
		return 1;
	buf[0] = '\0';
	if (in->dst_reg > DT_FP || in->src_reg > DT_FP) {
		/* src_reg of pseudo loads and calls is a kind, not a reg */
		bool pseudo = BPF_CLASS(in->code) == BPF_LD ||
			      (BPF_CLASS(in->code) == BPF_JMP &&
			       BPF_OP(in->code) == BPF_CALL);
		if (in->dst_reg > DT_FP || !pseudo)
			return raw(buf, len, in);
	}
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		return dis_alu(buf, len, in);
	case BPF_LDX:
		return dis_ldx(buf, len, in);
	case BPF_ST:
		return dis_st(buf, len, in);
	case BPF_STX:
		return dis_stx(buf, len, in);
	case BPF_LD:
		return dis_ld(buf, len, insns, i, n, mapname, arg);
	case BPF_JMP:
	case BPF_JMP32:
		return dis_jmp(buf, len, in, i);
	default:
		return raw(buf, len, in);
	}
}

int dt_dis_insn(char *buf, size_t len, const struct bpf_insn *insns,
		uint32_t i, uint32_t n)
{
	if (i >= n) {
		if (len > 0)
			buf[0] = '\0';
		return 1;
	}
	return dis_one(buf, len, insns, i, n, NULL, NULL);
}

void dt_dis(FILE *out, const struct bpf_insn *insns, uint32_t n,
	    const char *(*mapname)(void *arg, uint32_t insn), void *arg)
{
	char buf[160];

	for (uint32_t i = 0; i < n;) {
		int slots = dis_one(buf, sizeof(buf), insns, i, n, mapname,
				    arg);
		fprintf(out, "%04u: %s\n", i, buf);
		i += (uint32_t)slots;
	}
}
