/* SPDX-License-Identifier: MIT */
/*
 * dt_cg_net.c: the network subroutines: htons, htonl, htonll, ntohs,
 * ntohl, ntohll (byte order), inet_ntoa, inet_ntoa6 and inet_ntop (an
 * IPv4 address as a dotted string, an IPv6 address in hex groups with the
 * longest run of zero groups as "::"), link_ntop (hex bytes).
 *
 * The byte order ones are one BPF_END instruction: to big endian, which
 * on this little-endian machine swaps, and back (the same swap).  The
 * address is read from user memory (or a copyin() copy) into the read
 * staging slot of the scratch area, then written digit by digit into a
 * string temporary through a pointer whose offset the verifier sees
 * bounded: at most 15 characters and the NUL, within the 2 * strroom
 * bytes of a temporary (at least 16), then cut at strsize.  The longer
 * texts of IPv6 and link addresses are built in a buffer of their own
 * size and copied to a temporary cut at strsize (text_buf()), so they
 * work at any strsize; every store goes through r2, whose offset from
 * the buffer is a constant on each path, which the verifier follows.
 */
#include "dt_cg_impl.h"

#define EMIT(insn)	dt_cg_emit(cx, insn)

#define DT_AF_INET	2	/* Linux's AF_INET, as inet_ntop() takes it */
#define DT_AF_INET6	10	/* Linux's AF_INET6 */
#define DT_DL_ETHER	1	/* link_ntop()'s types: ARPHRD_ETHER */
#define DT_DL_IPOIB	32	/* ARPHRD_INFINIBAND */

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

/* Emit: read n bytes at address register a into the read staging slot of
 * the scratch area (stage); a bad address faults. */
static uint32_t read_addr(dt_cg_t *cx, int a, int n)
{
	uint32_t stage = cx->st->off_scratch + 16;

	dt_cg_mst_ptr(cx, DT_R1, stage);
	EMIT(DT_MOV64_IMM(DT_R2, n));
	EMIT(DT_MOV64_REG(DT_R3, a));
	dt_cg_probe_read(cx, false);
	dt_cg_fault_if(cx, BPF_JNE, DT_R0, 0, DT_FAULT_BADADDR, a);
	return stage;
}

/* Emit: the 4 bytes at mstate offset at as "a.b.c.d" and its NUL at r2. */
static void ipv4_digits(dt_cg_t *cx, uint32_t at)
{
	for (int i = 0; i < 4; i++) {
		EMIT(DT_LOAD(BPF_B, DT_R3, DT_R9, (int16_t)(at + i)));
		put_byte(cx);
		EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, i < 3 ? '.' : 0));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	}
}

/* Emit: the IPv4 address at address register a as "a.b.c.d" in a new
 * temporary; a becomes the string.  A bad address faults. */
static void ipv4_string(dt_cg_t *cx, int a)
{
	uint32_t t = dt_cg_temp(cx), stage = read_addr(cx, a, 4);

	dt_cg_mst_ptr(cx, DT_R2, t);
	ipv4_digits(cx, stage);
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

/* ---- IPv6 ---- */

/* The longest text an IPv6 address or a link address makes, with its
 * NUL: eight groups of four hex digits and seven colons; twenty bytes of
 * an IPoIB address as two hex digits and a colon each. */
#define IPV6_TEXT_MAX	40
#define LINK_TEXT_MAX	60

/* The buffer where an IPv6 or link address's text is built: the
 * comparison buffers, which hold more than the longest (DT_CG_CMP_MIN
 * bytes whatever strsize); the text is then copied to a temporary, cut at
 * strsize (dt_cg_text_temp()), as DTrace cuts it. */
_Static_assert(LINK_TEXT_MAX <= DT_CG_CMP_MIN, "an address's text fits");

static uint32_t text_buf(dt_cg_t *cx)
{
	return cx->st->off_cmp;
}

/* Emit: a = the text built at text_buf(), in a new temporary. */
static void text_result(dt_cg_t *cx, int a, uint32_t max)
{
	dt_cg_mst_ptr(cx, DT_R3, text_buf(cx));
	dt_cg_text_temp(cx, a, max);
}

/* Emit: r2++ = the hex digit of r0 (0 to 15). */
static void put_hexdigit(dt_cg_t *cx)
{
	int dec = dt_as_label(cx->as);

	dt_as_jump(cx->as, BPF_JLT, DT_R0, 10, dec);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, 'a' - 10 - '0'));
	dt_as_place(cx->as, dec);
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R0, '0'));
	EMIT(DT_STORE(BPF_B, DT_R2, 0, DT_R0));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
}

/* Emit: the 16-bit group in r5 in hex without leading zeros at r2,
 * advancing r2; r1 counts the digits written. */
static void put_group(dt_cg_t *cx)
{
	EMIT(DT_MOV64_IMM(DT_R1, 0));
	for (int k = 3; k >= 0; k--) {
		int skip = dt_as_label(cx->as), put = dt_as_label(cx->as);

		EMIT(DT_MOV64_REG(DT_R0, DT_R5));
		EMIT(DT_ALU64_IMM(BPF_RSH, DT_R0, 4 * k));
		EMIT(DT_ALU64_IMM(BPF_AND, DT_R0, 0xf));
		if (k > 0) {
			dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, put);
			dt_as_jump(cx->as, BPF_JEQ, DT_R1, 0, skip);
		}
		dt_as_place(cx->as, put);
		EMIT(DT_MOV64_IMM(DT_R1, 1));
		put_hexdigit(cx);
		dt_as_place(cx->as, skip);
	}
}

/* Where zero_run() leaves the run, which put_v6_group() reads back: the
 * verifier then sees the run as any run, not as the constants of each
 * path through zero_run(), and checks the groups once instead of once per
 * run (a program with inet_ntoa6() loaded in 5 s on a busy machine). */
static uint32_t run_slot(dt_cg_t *cx)
{
	return cx->st->off_scratch + 48;
}

/* Emit: r3 = the first group of the longest run of zero groups of the
 * address at stage (the first such run), r4 = its length, both also at
 * run_slot(); a run of one group is not one (r3 8, r4 0), as in DTrace. */
static void zero_run(dt_cg_t *cx, uint32_t stage)
{
	int none = dt_as_label(cx->as), done = dt_as_label(cx->as);

	EMIT(DT_MOV64_IMM(DT_R2, 0));		/* length of the current run */
	EMIT(DT_MOV64_IMM(DT_R4, 0));
	EMIT(DT_MOV64_IMM(DT_R3, 8));
	for (int i = 0; i < 8; i++) {
		int nz = dt_as_label(cx->as), grow = dt_as_label(cx->as);
		int next = dt_as_label(cx->as), keep = dt_as_label(cx->as);

		EMIT(DT_LOAD(BPF_H, DT_R5, DT_R9, (int16_t)(stage + 2 * i)));
		dt_as_jump(cx->as, BPF_JNE, DT_R5, 0, nz);
		dt_as_jump(cx->as, BPF_JNE, DT_R2, 0, grow);
		EMIT(DT_MOV64_IMM(DT_R1, i));	/* a run starts */
		dt_as_place(cx->as, grow);
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
		dt_as_jump(cx->as, BPF_JA, 0, 0, next);
		dt_as_place(cx->as, nz);
		EMIT(DT_MOV64_IMM(DT_R2, 0));
		dt_as_place(cx->as, next);
		dt_as_jump_reg(cx->as, BPF_JLE, DT_R2, DT_R4, keep);
		EMIT(DT_MOV64_REG(DT_R4, DT_R2));
		EMIT(DT_MOV64_REG(DT_R3, DT_R1));
		dt_as_place(cx->as, keep);
	}
	dt_as_jump(cx->as, BPF_JLT, DT_R4, 2, none);
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, none);
	EMIT(DT_MOV64_IMM(DT_R3, 8));
	EMIT(DT_MOV64_IMM(DT_R4, 0));
	dt_as_place(cx->as, done);
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)run_slot(cx), DT_R3));
	EMIT(DT_STORE(BPF_DW, DT_R9, (int16_t)(run_slot(cx) + 8), DT_R4));
}

/* Emit: group i of the address at stage, at r2: "::" where the run of
 * zero groups (r3, r4) starts, nothing inside it, else the group in hex
 * after a ':' unless it is the first or follows the run. */
static void put_v6_group(dt_cg_t *cx, uint32_t stage, int i)
{
	int outside = dt_as_label(cx->as), next = dt_as_label(cx->as);
	int nosep = dt_as_label(cx->as);

	EMIT(DT_LOAD(BPF_DW, DT_R3, DT_R9, (int16_t)run_slot(cx)));
	EMIT(DT_LOAD(BPF_DW, DT_R4, DT_R9, (int16_t)(run_slot(cx) + 8)));
	dt_as_jump(cx->as, BPF_JGT, DT_R3, i, outside);
	EMIT(DT_MOV64_IMM(DT_R0, i));
	EMIT(DT_ALU64_REG(BPF_SUB, DT_R0, DT_R3));
	dt_as_jump_reg(cx->as, BPF_JGE, DT_R0, DT_R4, outside);
	dt_as_jump(cx->as, BPF_JNE, DT_R3, i, next);
	EMIT(DT_STORE_IMM(BPF_H, DT_R2, 0, ':' | ':' << 8));
	EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 2));
	dt_as_jump(cx->as, BPF_JA, 0, 0, next);
	dt_as_place(cx->as, outside);
	if (i > 0) {
		EMIT(DT_MOV64_REG(DT_R0, DT_R3));
		EMIT(DT_ALU64_REG(BPF_ADD, DT_R0, DT_R4));
		dt_as_jump(cx->as, BPF_JEQ, DT_R0, i, nosep);
		EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, ':'));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
		dt_as_place(cx->as, nosep);
	}
	EMIT(DT_LOAD(BPF_H, DT_R5, DT_R9, (int16_t)(stage + 2 * i)));
	EMIT(DT_INSN(BPF_ALU | BPF_END | BPF_TO_BE, DT_R5, 0, 0, 16));
	put_group(cx);
	dt_as_place(cx->as, next);
}

/* Emit: jump to mapped for ::ffff:a.b.c.d, to compat for an address
 * whose first six groups are zero and that is neither :: nor ::1 (as
 * DTrace reads an IPv4 address embedded in IPv6); else go on. */
static void v4_embedded(dt_cg_t *cx, uint32_t stage, int mapped, int compat)
{
	int v6 = dt_as_label(cx->as);

	EMIT(DT_LOAD(BPF_DW, DT_R0, DT_R9, (int16_t)stage));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, v6);
	EMIT(DT_LOAD(BPF_H, DT_R0, DT_R9, (int16_t)(stage + 8)));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, v6);
	EMIT(DT_LOAD(BPF_H, DT_R0, DT_R9, (int16_t)(stage + 10)));
	dt_as_jump(cx->as, BPF_JEQ, DT_R0, 0xffff, mapped);
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, v6);
	EMIT(DT_LOAD(BPF_H, DT_R0, DT_R9, (int16_t)(stage + 12)));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, compat);
	EMIT(DT_LOAD(BPF_B, DT_R0, DT_R9, (int16_t)(stage + 14)));
	dt_as_jump(cx->as, BPF_JNE, DT_R0, 0, compat);
	EMIT(DT_LOAD(BPF_B, DT_R0, DT_R9, (int16_t)(stage + 15)));
	dt_as_jump(cx->as, BPF_JGT, DT_R0, 1, compat);
	dt_as_place(cx->as, v6);
}

/* Emit: the prefix of an embedded IPv4 address (inet_ntop only). */
static void put_text(dt_cg_t *cx, const char *s)
{
	for (; *s != '\0'; s++) {
		EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, *s));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	}
}

/* Emit: the IPv6 address at address register a as DTrace writes it in a
 * new temporary; a becomes the string.  An embedded IPv4 address is
 * "a.b.c.d" alone for inet_ntoa6(), after "::ffff:" or "::" for
 * inet_ntop(). */
static void ipv6_string(dt_cg_t *cx, int a, bool ntop)
{
	uint32_t t = text_buf(cx);
	uint32_t stage = read_addr(cx, a, 16);
	int mapped = dt_as_label(cx->as), compat = dt_as_label(cx->as);
	int v4 = dt_as_label(cx->as), done = dt_as_label(cx->as);

	v4_embedded(cx, stage, mapped, compat);
	zero_run(cx, stage);
	dt_cg_mst_ptr(cx, DT_R2, t);
	for (int i = 0; i < 8; i++)
		put_v6_group(cx, stage, i);
	EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, 0));
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, mapped);
	dt_cg_mst_ptr(cx, DT_R2, t);
	if (ntop)
		put_text(cx, "::ffff:");
	dt_as_jump(cx->as, BPF_JA, 0, 0, v4);
	dt_as_place(cx->as, compat);
	dt_cg_mst_ptr(cx, DT_R2, t);
	if (ntop)
		put_text(cx, "::");
	dt_as_place(cx->as, v4);
	ipv4_digits(cx, stage + 12);
	dt_as_place(cx->as, done);
	text_result(cx, a, IPV6_TEXT_MAX);
}

/* inet_ntoa6(struct in6_addr *addr) */
int dt_cg_inet_ntoa6(dt_cg_t *cx, dt_node_t *n)
{
	int a = dt_cg_expr(cx, n->args);

	ipv6_string(cx, a, false);
	return a;
}

/* inet_ntop(af, addr): AF_INET or AF_INET6, chosen at run time unless
 * af is a constant; another family is an illegal operation.  (addr is
 * computed first: af's register is the one given back first.) */
int dt_cg_inet_ntop(dt_cg_t *cx, dt_node_t *n)
{
	dt_node_t *afn = n->args;
	int a = dt_cg_expr(cx, afn->next);

	if (afn->is_const) {
		if (afn->ival == DT_AF_INET)
			ipv4_string(cx, a);
		else
			ipv6_string(cx, a, true);
		return a;
	}
	int af = dt_cg_expr(cx, afn);
	int v6 = dt_as_label(cx->as), done = dt_as_label(cx->as);

	dt_as_jump(cx->as, BPF_JEQ, af, DT_AF_INET6, v6);
	dt_cg_fault_if(cx, BPF_JNE, af, DT_AF_INET, DT_FAULT_ILLOP, -1);
	ipv4_string(cx, a);
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, v6);
	ipv6_string(cx, a, true);
	dt_as_place(cx->as, done);
	dt_regs_give(cx, af);
	return a;
}

/* ---- link addresses ---- */

/* Emit: the n bytes at stage as two hex digits each, joined by ':', and
 * the NUL, at r2. */
static void link_digits(dt_cg_t *cx, uint32_t stage, int n)
{
	for (int i = 0; i < n; i++) {
		EMIT(DT_LOAD(BPF_B, DT_R5, DT_R9, (int16_t)(stage + i)));
		EMIT(DT_MOV64_REG(DT_R0, DT_R5));
		EMIT(DT_ALU64_IMM(BPF_RSH, DT_R0, 4));
		put_hexdigit(cx);
		EMIT(DT_MOV64_REG(DT_R0, DT_R5));
		EMIT(DT_ALU64_IMM(BPF_AND, DT_R0, 0xf));
		put_hexdigit(cx);
		EMIT(DT_STORE_IMM(BPF_B, DT_R2, 0, i < n - 1 ? ':' : 0));
		EMIT(DT_ALU64_IMM(BPF_ADD, DT_R2, 1));
	}
}

/* link_ntop(type, addr): an Ethernet (DL_ETHER, 6 bytes) or IPoIB
 * (DL_IPOIB, 20 bytes) address as hex bytes joined by ':'; another type
 * is an illegal operation. */
int dt_cg_link_ntop(dt_cg_t *cx, dt_node_t *n)
{
	int a = dt_cg_expr(cx, n->args->next);
	int type = dt_cg_expr(cx, n->args);
	uint32_t t = text_buf(cx);
	int ib = dt_as_label(cx->as), done = dt_as_label(cx->as);
	uint32_t stage = cx->st->off_scratch + 16;

	dt_as_jump(cx->as, BPF_JEQ, type, DT_DL_IPOIB, ib);
	dt_cg_fault_if(cx, BPF_JNE, type, DT_DL_ETHER, DT_FAULT_ILLOP, -1);
	read_addr(cx, a, 6);
	dt_cg_mst_ptr(cx, DT_R2, t);
	link_digits(cx, stage, 6);
	dt_as_jump(cx->as, BPF_JA, 0, 0, done);
	dt_as_place(cx->as, ib);
	read_addr(cx, a, 20);
	dt_cg_mst_ptr(cx, DT_R2, t);
	link_digits(cx, stage, 20);
	dt_as_place(cx->as, done);
	dt_regs_give(cx, type);
	text_result(cx, a, LINK_TEXT_MAX);
	return a;
}
