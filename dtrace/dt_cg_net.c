/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_net.c: the network subroutines: htons, htonl, htonll, ntohs,
 * ntohl, ntohll (byte order), inet_ntoa and inet_ntop (an IPv4 address
 * as a dotted string).
 *
 * The byte order ones are one BPF_END instruction: to big endian, which
 * on this little-endian machine swaps, and back (the same swap).  The
 * address is read from user memory (or a copyin() copy) into the read
 * staging slot of the scratch area, then written digit by digit into a
 * string temporary through a pointer whose offset the verifier sees
 * bounded: at most 15 characters and the NUL, within the 2 * strroom
 * bytes of a temporary (at least 16), then cut at strsize.
 */
#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)

#define DT_AF_INET	2	/* Linux's AF_INET, as inet_ntop() takes it */

/* htons(x) and the like: x in network (big-endian) byte order, or back;
 * bits is the width: 16, 32 or 64. */
int dt_cg_byteorder(dt_cg_t *cx, dt_node_t *n, int bits)
{
	int a = dt_cg_expr(cx, n->args);

	EMIT(DT_INSN(BPF_ALU | BPF_END | BPF_TO_BE, a, 0, 0, bits));
	return a;
}

/* Emit: *r2++ = '0' + r4 (r4 a digit). */
static void put_digit(dt_cg_t *cx)
{
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R4, '0'));
	EMIT(DT_STORE(BPF_B, DT_R2, 0, DT_R4));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
}

/* Emit: the decimal digits of the byte in r3 at r2, advancing r2. */
static void put_byte(dt_cg_t *cx)
{
	int tens = dt_as_label(cx->as), ones = dt_as_label(cx->as);
	int two = dt_as_label(cx->as);

	dt_as_jump(cx->as, BPF_JLT, DT_R3, 100, two);
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_DIV, DT_R4, 100));
	put_digit(cx);
	EMIT(DT_ALU64_IMM(BPF_MOD, DT_R3, 100));
	dt_as_jump(cx->as, BPF_JA, 0, 0, tens);
	dt_as_place(cx->as, two);
	dt_as_jump(cx->as, BPF_JLT, DT_R3, 10, ones);
	dt_as_place(cx->as, tens);
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	EMIT(DT_ALU64_IMM(BPF_DIV, DT_R4, 10));
	put_digit(cx);
	EMIT(DT_ALU64_IMM(BPF_MOD, DT_R3, 10));
	dt_as_place(cx->as, ones);
	EMIT(DT_MOV64_REG(DT_R4, DT_R3));
	put_digit(cx);
}

/* Emit: the IPv4 address at address register a as "a.b.c.d" in a new
 * temporary; a becomes the string.  A bad address faults. */
static void ipv4_string(dt_cg_t *cx, int a)
{
	uint32_t stage = cx->st->off_scratch + 16, t = dt_cg_temp(cx);

	dt_cg_mst_ptr(cx, DT_R1, stage);
	EMIT(DT_MOV64_IMM(DT_R2, 4));
	EMIT(DT_MOV64_REG(DT_R3, a));
	dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, a);
	dt_cg_mst_ptr(cx, DT_R2, t);
	for (int i = 0; i < 4; i++) {
		EMIT(DT_LOAD(BPF_B, DT_R3, DT_R9, (int16_t)(stage + i)));
		put_byte(cx);
		EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, i < 3 ? '.' : 0));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	}
	dt_cg_str_cut(cx, t, 16);
	dt_cg_mst_ptr(cx, a, t);
}

/* inet_ntoa(ipaddr_t *addr) */
int dt_cg_inet_ntoa(dt_cg_t *cx, dt_node_t *n)
{
	int a = dt_cg_expr(cx, n->args);

	ipv4_string(cx, a);
	return a;
}

/* inet_ntop(af, addr): AF_INET only (the checker refuses a constant
 * other family); another family at run time is an illegal operation. */
int dt_cg_inet_ntop(dt_cg_t *cx, dt_node_t *n)
{
	int af = dt_cg_expr(cx, n->args);

	dt_cg_fault_if(cx, BPF_JNE, af, DT_AF_INET, DT_FAULT_ILLOP, -1);
	dt_regs_give(cx, af);
	int a = dt_cg_expr(cx, n->args->next);
	ipv4_string(cx, a);
	return a;
}
