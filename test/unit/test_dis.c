/* SPDX-License-Identifier: MIT */
/*
 * test_dis.c: the disassembler (dt_dis.c) prints each instruction class as
 * dtrace -S shows it, names maps through the callback, and prints anything
 * it does not understand as raw bytes without reading past the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_as.h"

static int failures;

/* Disassemble insns[0] (with insns[1] for two-slot loads) and compare. */
static void expect(const struct bpf_insn *insns, uint32_t n, const char *want,
		   int want_slots, int line)
{
	char buf[160];
	int slots = dt_dis_insn(buf, sizeof(buf), insns, 0, n);

	if (strcmp(buf, want) != 0 || slots != want_slots) {
		fprintf(stderr, "test_dis.c:%d: got \"%s\" (%d slots), want "
			"\"%s\" (%d)\n", line, buf, slots, want, want_slots);
		failures++;
	}
}

#define ONE(insn, want)							\
	do {								\
		struct bpf_insn one_[1] = { insn };			\
		expect(one_, 1, want, 1, __LINE__);			\
	} while (0)

static void test_alu(void)
{
	ONE(DT_MOV64_REG(DT_R1, DT_R2), "r1 = r2");
	ONE(DT_MOV64_IMM(DT_R0, 0), "r0 = 0");
	ONE(DT_MOV64_IMM(DT_R3, -1), "r3 = -1");
	ONE(DT_MOV32_REG(DT_R1, DT_R9), "w1 = w9");
	ONE(DT_ALU64_IMM(BPF_ADD, DT_R2, -4), "r2 += -4");
	ONE(DT_ALU64_REG(BPF_SUB, DT_R2, DT_R3), "r2 -= r3");
	ONE(DT_ALU64_REG(BPF_MUL, DT_R4, DT_R5), "r4 *= r5");
	ONE(DT_ALU64_IMM(BPF_DIV, DT_R4, 10), "r4 /= 10");
	ONE(DT_ALU64_IMM(BPF_MOD, DT_R4, 10), "r4 %= 10");
	ONE(DT_ALU64_IMM(BPF_LSH, DT_R1, 32), "r1 <<= 32");
	ONE(DT_ALU64_IMM(BPF_RSH, DT_R1, 32), "r1 >>= 32");
	ONE(DT_ALU64_IMM(BPF_ARSH, DT_R1, 32), "r1 s>>= 32");
	ONE(DT_ALU64_REG(BPF_AND, DT_R1, DT_R2), "r1 &= r2");
	ONE(DT_ALU64_REG(BPF_OR, DT_R1, DT_R2), "r1 |= r2");
	ONE(DT_ALU64_REG(BPF_XOR, DT_R1, DT_R2), "r1 ^= r2");
	ONE(DT_ALU32_IMM(BPF_ADD, DT_R1, 7), "w1 += 7");
	ONE(DT_NEG64(DT_R6), "r6 = -r6");
	ONE(DT_INSN(BPF_ALU | BPF_END | BPF_TO_BE, DT_R1, 0, 0, 16),
	    "r1 = be16 r1");
	ONE(DT_INSN(BPF_ALU | BPF_END | BPF_TO_LE, DT_R1, 0, 0, 64),
	    "r1 = le64 r1");
	ONE(DT_INSN(BPF_ALU64 | BPF_END, DT_R1, 0, 0, 32), "r1 = bswap32 r1");
	/* signed division, sign-extending move */
	ONE(DT_INSN(BPF_ALU64 | BPF_DIV | BPF_X, DT_R1, DT_R2, 1, 0),
	    "r1 s/= r2");
	ONE(DT_INSN(BPF_ALU64 | BPF_MOV | BPF_X, DT_R1, DT_R2, 8, 0),
	    "r1 = (s8)r2");
}

static void test_mem(void)
{
	ONE(DT_LOAD(BPF_DW, DT_R1, DT_R7, 8), "r1 = *(u64 *)(r7 + 8)");
	ONE(DT_LOAD(BPF_B, DT_R0, DT_FP, -1), "r0 = *(u8 *)(r10 - 1)");
	ONE(DT_LOAD(BPF_H, DT_R0, DT_R1, 0), "r0 = *(u16 *)(r1 + 0)");
	ONE(DT_INSN(BPF_LDX | 0x80 | BPF_W, DT_R2, DT_R3, 4, 0),
	    "r2 = *(s32 *)(r3 + 4)");
	ONE(DT_STORE(BPF_W, DT_FP, -4, DT_R0), "*(u32 *)(r10 - 4) = r0");
	ONE(DT_STORE_IMM(BPF_DW, DT_FP, -16, 0), "*(u64 *)(r10 - 16) = 0");
	ONE(DT_XADD(BPF_DW, DT_R0, 0, DT_R1), "lock *(u64 *)(r0 + 0) += r1");
	ONE(DT_XADD(BPF_W, DT_R0, 8, DT_R1), "lock *(u32 *)(r0 + 8) += w1");
	ONE(DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, DT_R1, DT_R2, 0,
		    BPF_ADD | BPF_FETCH),
	    "r2 = atomic64_fetch_add((u64 *)(r1 + 0), r2)");
	ONE(DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, DT_R1, DT_R2, 0, BPF_XCHG),
	    "r2 = atomic64_xchg((u64 *)(r1 + 0), r2)");
	ONE(DT_INSN(BPF_STX | BPF_ATOMIC | BPF_DW, DT_R1, DT_R2, 0,
		    BPF_CMPXCHG),
	    "r0 = atomic64_cmpxchg((u64 *)(r1 + 0), r0, r2)");
	ONE(DT_INSN(BPF_LD | BPF_ABS | BPF_W, 0, 0, 0, 12),
	    "r0 = *(u32 *)skb[12]");
}

static void test_jmp(void)
{
	struct bpf_insn prog[24] = { 0 };

	/* the targets are absolute: index + 1 + off */
	prog[13] = DT_INSN(BPF_JMP | BPF_JEQ | BPF_K, DT_R1, 0, 6, 0);
	char buf[160];
	dt_dis_insn(buf, sizeof(buf), prog, 13, 24);
	if (strcmp(buf, "if r1 == 0x0 goto 0020") != 0) {
		fprintf(stderr, "test_dis.c:%d: got \"%s\"\n", __LINE__, buf);
		failures++;
	}
	ONE(DT_INSN(BPF_JMP | BPF_JNE | BPF_X, DT_R1, DT_R2, 2, 0),
	    "if r1 != r2 goto 0003");
	ONE(DT_INSN(BPF_JMP | BPF_JSGT | BPF_K, DT_R3, 0, 0, -1),
	    "if r3 s> 0xffffffff goto 0001");
	ONE(DT_INSN(BPF_JMP | BPF_JSET | BPF_K, DT_R3, 0, 1, 4),
	    "if r3 & 0x4 goto 0002");
	ONE(DT_INSN(BPF_JMP32 | BPF_JLT | BPF_K, DT_R3, 0, 1, 4),
	    "if w3 < 0x4 goto 0002");
	ONE(DT_INSN(BPF_JMP | BPF_JA, 0, 0, 3, 0), "goto 0004");
	ONE(DT_INSN(BPF_JMP32 | BPF_JA, 0, 0, 0, 9), "goto 0010");
	ONE(DT_CALL_HELPER(BPF_FUNC_map_lookup_elem),
	    "call bpf_map_lookup_elem");
	ONE(DT_CALL_HELPER(BPF_FUNC_ringbuf_reserve), "call bpf_ringbuf_reserve");
	ONE(DT_CALL_HELPER(BPF_FUNC_get_attach_cookie),
	    "call bpf_get_attach_cookie");
	ONE(DT_CALL_HELPER(BPF_FUNC_probe_read_user_str),
	    "call bpf_probe_read_user_str");
	ONE(DT_CALL_HELPER(9999), "call helper#9999");
	ONE(DT_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 12),
	    "call pc+12");
	ONE(DT_INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, -5),
	    "call pc-5");
	ONE(DT_EXIT(), "exit");
}

static const char *map_names(void *arg, uint32_t insn)
{
	(void)arg;
	return insn == 0 ? "mstate" : NULL;
}

static void test_ld_imm64(void)
{
	struct bpf_insn ld[2] = {
		DT_LD_IMM64_LO(DT_R2, 0, 0x1122334455667788ull),
		DT_LD_IMM64_HI(0x1122334455667788ull),
	};
	expect(ld, 2, "r2 = 0x1122334455667788 ll", 2, __LINE__);
	/* the second half is missing: raw, one slot, nothing read beyond */
	expect(ld, 1, "raw 18 02 00 00 88 77 66 55", 1, __LINE__);

	struct bpf_insn map[2] = {
		DT_LD_IMM64_LO(DT_R1, BPF_PSEUDO_MAP_FD, 5),
		DT_LD_IMM64_HI(0),
	};
	expect(map, 2, "r1 = map[fd 5]", 2, __LINE__);

	/* dt_dis: map names through the callback, the second slot skipped */
	struct bpf_insn prog[4] = {
		map[0], map[1], DT_MOV64_IMM(DT_R0, 0), DT_EXIT(),
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	dt_dis(f, prog, 4, map_names, NULL);
	fclose(f);
	const char *want = "0000: r1 = map[mstate]\n0002: r0 = 0\n"
			   "0003: exit\n";
	if (strcmp(text, want) != 0) {
		fprintf(stderr, "test_dis.c:%d: got\n%s", __LINE__, text);
		failures++;
	}
	free(text);
}

static void test_garbage(void)
{
	ONE(DT_INSN(0xff, 0, 0, 0, 0), "raw ff 00 00 00 00 00 00 00");
	/* a register number out of range */
	ONE(DT_INSN(BPF_ALU64 | BPF_MOV | BPF_X, 11, 1, 0, 0),
	    "raw bf 1b 00 00 00 00 00 00");
	ONE(DT_INSN(BPF_ALU64 | 0xe0 | BPF_K, 1, 0, 0, 0),
	    "raw e7 01 00 00 00 00 00 00");
	ONE(DT_INSN(BPF_JMP | 0xe0 | BPF_K, 1, 0, 0, 0),
	    "raw e5 01 00 00 00 00 00 00");

	/* every 8-byte pattern of a pseudo-random stream prints something
	 * and never claims more slots than are left */
	struct bpf_insn r[2];
	unsigned seed = 12345;
	char buf[160];
	for (int k = 0; k < 200000; k++) {
		unsigned char *b = (unsigned char *)r;
		for (size_t j = 0; j < sizeof(r); j++) {
			seed = seed * 1103515245u + 12345u;
			b[j] = (unsigned char)(seed >> 16);
		}
		uint32_t n = (k & 1) ? 2 : 1;
		int slots = dt_dis_insn(buf, sizeof(buf), r, 0, n);
		if (buf[0] == '\0' || slots < 1 || (uint32_t)slots > n) {
			fprintf(stderr, "test_dis.c: %02x: \"%s\" %d slots\n",
				r[0].code, buf, slots);
			failures++;
			break;
		}
	}
	/* a tiny buffer is not overrun */
	char small[4];
	dt_dis_insn(small, sizeof(small), r, 0, 1);
	if (strlen(small) >= sizeof(small))
		failures++;
}

int main(void)
{
	test_alu();
	test_mem();
	test_jmp();
	test_ld_imm64();
	test_garbage();
	if (failures) {
		fprintf(stderr, "test_dis: %d failures\n", failures);
		return 1;
	}
	printf("test_dis: ok\n");
	return 0;
}
