/* SPDX-License-Identifier: MIT */
/*
 * usdt_args.c: decoding of <sys/sdt.h> argument specifications (x86-64).
 *
 * A note carries its arguments as one string of space-separated
 * specifications "[-]N[f]@operand", where N is the size in bytes (1, 2, 4,
 * 8; negative: signed), f marks a floating-point value (4: float, 8:
 * double, read as its bits) and operand is the assembler operand the
 * compiler chose for the value at the probe site (AT&T syntax):
 *
 *	%reg			a register, any width (%al %ah %ax %eax %rax,
 *				%r8b %r8w %r8d %r8, %sil %dil %bpl %spl ...)
 *	$imm			a constant
 *	disp(%base)		memory; disp may be empty or an expression of
 *				numbers and symbols ("-16", "40+sym", "sym+8")
 *	disp(%base,%index,s)	memory with an index scaled by 1, 2, 4 or 8
 *	sym(%rip)		memory at a symbol (its address relative to
 *				the program counter at run time)
 *	sym			absolute memory (non-PIE programs)
 *
 * Invariant: a successful decode yields a location the trampoline can
 * evaluate from pt_regs and user memory alone; anything else (segment
 * overrides, symbols that are not in the file, sizes other than 1/2/4/8)
 * is refused with -EINVAL and USDT_LOC_NONE, and the caller reports it.
 * A floating-point value in an SSE register (%xmm0) is refused with
 * -EOPNOTSUPP: a uprobe's pt_regs holds the general registers only.
 *
 * A symbol's link-time address is turned into a run-time one without knowing
 * the load base: the probe site's own run-time address is in pt_regs->ip,
 * so the value's address is ip + (sym - site), a memory operand based on ip.
 *
 * Whose declared types are taken (usdt_decl_trusted()): a registration
 * with dtprobed may declare its process's argument types (a description
 * made without `dtrace -G`); only one sent by a process of root or of the
 * session's user types the session's probes, so that no other user
 * changes how root's script compiles.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "usdt_impl.h"

/* pt_regs byte offsets of the general purpose registers (provider.h's
 * DTRACE_CTX_REG), and the names of each register's 64, 32, 16 and low
 * 8-bit forms (a second 8-bit spelling where assemblers accept two). */
static const struct {
	int off;
	const char *names[6];
} usdt_regs[] = {
	{ DTRACE_CTX_REG(RAX), { "rax", "eax", "ax", "al" } },
	{ DTRACE_CTX_REG(RBX), { "rbx", "ebx", "bx", "bl" } },
	{ DTRACE_CTX_REG(RCX), { "rcx", "ecx", "cx", "cl" } },
	{ DTRACE_CTX_REG(RDX), { "rdx", "edx", "dx", "dl" } },
	{ DTRACE_CTX_REG(RSI), { "rsi", "esi", "si", "sil" } },
	{ DTRACE_CTX_REG(RDI), { "rdi", "edi", "di", "dil" } },
	{ DTRACE_CTX_REG(RBP), { "rbp", "ebp", "bp", "bpl" } },
	{ DTRACE_CTX_REG(RSP), { "rsp", "esp", "sp", "spl" } },
	{ DTRACE_CTX_REG(R8),  { "r8", "r8d", "r8w", "r8b", "r8l" } },
	{ DTRACE_CTX_REG(R9),  { "r9", "r9d", "r9w", "r9b", "r9l" } },
	{ DTRACE_CTX_REG(R10), { "r10", "r10d", "r10w", "r10b", "r10l" } },
	{ DTRACE_CTX_REG(R11), { "r11", "r11d", "r11w", "r11b", "r11l" } },
	{ DTRACE_CTX_REG(R12), { "r12", "r12d", "r12w", "r12b", "r12l" } },
	{ DTRACE_CTX_REG(R13), { "r13", "r13d", "r13w", "r13b", "r13l" } },
	{ DTRACE_CTX_REG(R14), { "r14", "r14d", "r14w", "r14b", "r14l" } },
	{ DTRACE_CTX_REG(R15), { "r15", "r15d", "r15w", "r15b", "r15l" } },
	{ DTRACE_CTX_IP, { "rip", "eip" } },
};

/* The high byte registers live one byte above their register's start. */
static const struct {
	const char *name;
	int off;
} usdt_hiregs[] = {
	{ "ah", DTRACE_CTX_REG(RAX) + 1 }, { "bh", DTRACE_CTX_REG(RBX) + 1 },
	{ "ch", DTRACE_CTX_REG(RCX) + 1 }, { "dh", DTRACE_CTX_REG(RDX) + 1 },
};

int usdt_reg_offset(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(usdt_regs) / sizeof(usdt_regs[0]); i++)
		for (int j = 0; j < 6 && usdt_regs[i].names[j]; j++)
			if (strlen(usdt_regs[i].names[j]) == len &&
			    strncmp(usdt_regs[i].names[j], name, len) == 0)
				return usdt_regs[i].off;
	for (size_t i = 0; i < sizeof(usdt_hiregs) / sizeof(usdt_hiregs[0]); i++)
		if (strlen(usdt_hiregs[i].name) == len &&
		    strncmp(usdt_hiregs[i].name, name, len) == 0)
			return usdt_hiregs[i].off;
	return -1;
}

/* Read "%name" at *pp; advance past it.  Returns the offset or -1. */
static int parse_reg(const char **pp)
{
	const char *p = *pp;
	if (*p != '%')
		return -1;
	p++;
	size_t n = 0;
	while (isalnum((unsigned char)p[n]))
		n++;
	int off = usdt_reg_offset(p, n);
	if (off >= 0)
		*pp = p + n;
	return off;
}

/* Read a number (decimal, 0x hex, or octal as the assembler does). */
static bool parse_number(const char **pp, int64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long u = strtoull(*pp, &end, 0);
	if (end == *pp || errno)
		return false;
	*v = (int64_t)u;
	*pp = end;
	return true;
}

static bool is_sym_char(int c, bool first)
{
	return isalpha(c) || c == '_' || c == '.' || c == '$' ||
	       (!first && (isdigit(c) || c == '@'));
}

/*
 * A displacement: terms (numbers and symbols) joined by + and -, e.g.
 * "-16", "40+CheckpointStats", "sym+8", "sym-4".  Stops at '(' or the end.
 * *has_sym says whether a symbol took part (its address is link-time).
 */
static bool parse_disp(const char **pp, const usdt_symtab_t *st,
		       int64_t *disp, bool *has_sym)
{
	const char *p = *pp;
	int64_t sum = 0;
	bool first = true;
	*has_sym = false;
	while (*p && *p != '(') {
		int sign = 1;
		if (*p == '+' || *p == '-') {
			sign = *p == '-' ? -1 : 1;
			p++;
		} else if (!first) {
			return false;
		}
		int64_t v;
		if (isdigit((unsigned char)*p)) {
			if (!parse_number(&p, &v))
				return false;
		} else if (is_sym_char((unsigned char)*p, true)) {
			const char *s = p;
			while (is_sym_char((unsigned char)*p, false))
				p++;
			char name[256];
			size_t n = (size_t)(p - s);
			if (n >= sizeof(name) || *has_sym)
				return false;	/* two symbols: not an address */
			memcpy(name, s, n);
			name[n] = '\0';
			uint64_t a;
			if (st == NULL || usdt_sym_lookup(st, name, &a) != 0)
				return false;
			v = (int64_t)a;
			*has_sym = true;
		} else {
			return false;
		}
		sum += sign * v;
		first = false;
	}
	*disp = sum;
	*pp = p;
	return true;
}

/* "(%base)", "(%base,%index)", "(%base,%index,scale)", "(,%index,scale)". */
static bool parse_mem_regs(const char **pp, usdt_arg_t *arg)
{
	const char *p = *pp + 1;
	arg->base = USDT_NOREG;
	arg->index = USDT_NOREG;
	arg->scale_shift = 0;
	if (*p == '%') {
		int off = parse_reg(&p);
		if (off < 0 || (off & 7))
			return false;	/* unknown, or a high byte register */
		arg->base = (uint8_t)off;
	}
	if (*p == ',') {
		p++;
		int off = parse_reg(&p);
		if (off < 0 || (off & 7) || off == DTRACE_CTX_IP)
			return false;
		arg->index = (uint8_t)off;
		if (*p == ',') {
			p++;
			int64_t scale;
			if (!parse_number(&p, &scale))
				return false;
			switch (scale) {
			case 1: arg->scale_shift = 0; break;
			case 2: arg->scale_shift = 1; break;
			case 4: arg->scale_shift = 2; break;
			case 8: arg->scale_shift = 3; break;
			default: return false;
			}
		}
	}
	if (*p != ')')
		return false;
	*pp = p + 1;
	return true;
}

/* The size prefix "[-]N[f]@"; a specification without one is an
 * old-style 8-byte value.  A floating-point value is its bits,
 * zero-extended, whatever its sign says. */
static bool parse_size(const char **pp, usdt_arg_t *arg)
{
	const char *p = *pp;
	const char *at = strchr(p, '@');
	arg->size = 8;
	arg->is_signed = false;
	if (at == NULL)
		return true;
	if (*p == '-') {
		arg->is_signed = true;
		p++;
	}
	int64_t n;
	if (!parse_number(&p, &n))
		return false;
	if (*p == 'f') {
		arg->is_float = true;
		arg->is_signed = false;
		p++;
	}
	if (p != at)
		return false;
	if (arg->is_float ? n != 4 && n != 8 :
	    n != 1 && n != 2 && n != 4 && n != 8)
		return false;
	arg->size = (uint8_t)n;
	*pp = at + 1;
	return true;
}

/* Whether the operand is an SSE register ("%xmm0" .. "%xmm31"). */
static bool is_sse_reg(const char *p)
{
	if (strncmp(p, "%xmm", 4) != 0 || !isdigit((unsigned char)p[4]))
		return false;
	p += 4;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

/* The operand after the size, into arg. */
static bool parse_operand(const char *p, uint64_t site, bool pie,
			  const usdt_symtab_t *st, usdt_arg_t *arg)
{
	if (*p == '%') {
		int off = parse_reg(&p);
		if (off < 0 || off == DTRACE_CTX_IP || *p)
			return false;
		arg->loc = USDT_LOC_REG;
		arg->base = (uint8_t)off;
		return true;
	}
	if (*p == '$') {
		p++;
		bool has_sym;
		if (!parse_disp(&p, st, &arg->val, &has_sym) || *p)
			return false;
		if (has_sym && pie)
			return false;	/* an address constant that moves */
		arg->loc = USDT_LOC_IMM;
		return true;
	}
	bool has_sym;
	int64_t disp;
	if (*p == '\0' || !parse_disp(&p, st, &disp, &has_sym))
		return false;
	arg->loc = USDT_LOC_MEM;
	arg->base = USDT_NOREG;
	arg->index = USDT_NOREG;
	if (*p == '(' && !parse_mem_regs(&p, arg))
		return false;
	if (*p)
		return false;
	if (arg->base == DTRACE_CTX_IP) {
		/* sym(%rip) is the symbol's address; a bare number relative
		 * to the next instruction means nothing at a nop site. */
		if (!has_sym || arg->index != USDT_NOREG)
			return false;
		arg->val = disp - (int64_t)site;
	} else if (has_sym && pie) {
		/* Absolute symbol in a moving file: make it ip-relative,
		 * unless a register is added to it too. */
		if (arg->base != USDT_NOREG)
			return false;
		arg->base = DTRACE_CTX_IP;
		arg->val = disp - (int64_t)site;
	} else {
		arg->val = disp;
	}
	return true;
}

int usdt_arg_parse(const char *spec, uint64_t site, bool pie,
		   const usdt_symtab_t *st, usdt_arg_t *arg)
{
	memset(arg, 0, sizeof(*arg));
	arg->base = USDT_NOREG;
	arg->index = USDT_NOREG;
	const char *p = spec;
	int rc = 0;
	if (!parse_size(&p, arg))
		rc = -EINVAL;
	else if (is_sse_reg(p))
		rc = -EOPNOTSUPP;
	else if (!parse_operand(p, site, pie, st, arg))
		rc = -EINVAL;
	if (rc != 0) {
		arg->loc = USDT_LOC_NONE;
		arg->base = USDT_NOREG;
		arg->index = USDT_NOREG;
		arg->val = 0;
		arg->error = rc;
	}
	return rc;
}

/* May a process of uid declare the types of this session's probes? */
static bool uid_trusted(unsigned long uid)
{
	return uid == 0 || uid == (unsigned long)getuid();
}

bool usdt_decl_trusted(pid_t pid)
{
	char path[64], line[256];
	unsigned long ruid, euid;
	bool trusted = false;
	FILE *f;

	/* The status file tells the process's credentials, which its owner
	 * cannot fake (/proc/PID's owner is root for a process that made
	 * itself undumpable). */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Uid: %lu %lu", &ruid, &euid) == 2) {
			trusted = uid_trusted(ruid) && uid_trusted(euid);
			break;
		}
	fclose(f);
	return trusted;
}
