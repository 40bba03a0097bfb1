/* SPDX-License-Identifier: MIT */
/*
 * pid_insn.c: x86-64 instruction decoding for the pid provider, with Zydis.
 *
 * Offsets of offset probes are instruction boundaries found by decoding a
 * function linearly from its first byte: a probe is never placed inside an
 * instruction.  Decoding stops at the first byte sequence Zydis cannot
 * decode (data in the text, or the end of a function whose size is wrong);
 * no boundary is offered past it.
 *
 * Unsafe sites.  Uprobes single-step the probed instruction out of line;
 * the 6.18 kernel of the development machines accepts a uprobe on VEX- and
 * EVEX-encoded instructions (AVX, AVX-512) and then executes some of them
 * wrongly, corrupting the traced program.  Every VEX, EVEX, XOP and MVEX
 * instruction is refused.  So are the instructions the kernel refuses to
 * probe (lock-prefixed ones, traps, hlt), with a message of our own.
 */
#include <errno.h>
#include <stdlib.h>

#include "pid_impl.h"

void pid_insn_init(pid_session_t *ps)
{
	ZydisDecoderInit(&ps->decoder, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
}

/* The bytes of [addr, addr + size) of f, malloc'ed; NULL with errno. */
static uint8_t *read_code(const dtrace_elf_t *f, uint64_t addr, uint64_t size)
{
	uint64_t off;
	uint8_t *buf;
	ssize_t n;

	if (size == 0 || size > (64u << 20)) {
		errno = EINVAL;
		return NULL;
	}
	if (pid_host->elf_vaddr_to_offset(f, addr, &off) != 0) {
		errno = ENOENT;
		return NULL;
	}
	if ((buf = malloc(size)) == NULL)
		return NULL;
	n = pid_host->elf_read(f, off, buf, size);
	if (n != (ssize_t)size) {
		free(buf);
		errno = n < 0 ? (int)-n : EIO;
		return NULL;
	}
	return buf;
}

int pid_insn_each(pid_session_t *ps, const dtrace_elf_t *f, uint64_t addr,
		  uint64_t size, int (*fn)(uint64_t off, void *arg), void *arg)
{
	ZydisDecodedInstruction insn;
	uint8_t *code = read_code(f, addr, size);
	uint64_t off = 0;

	if (code == NULL)
		return -errno;
	while (off < size) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&ps->decoder,
				NULL, code + off, size - off, &insn)))
			break;
		if (fn(off, arg) != 0)
			break;
		off += insn.length;
	}
	free(code);
	return 0;
}

struct boundary_arg {
	uint64_t want;
	bool found;
};

static int check_boundary(uint64_t off, void *arg)
{
	struct boundary_arg *ba = arg;

	if (off == ba->want)
		ba->found = true;
	return off >= ba->want;
}

bool pid_insn_is_boundary(pid_session_t *ps, const dtrace_elf_t *f,
			  uint64_t addr, uint64_t size, uint64_t off)
{
	struct boundary_arg ba = { .want = off };

	if (off == 0)
		return true;
	if (off >= size)
		return false;
	pid_insn_each(ps, f, addr, size, check_boundary, &ba);
	return ba.found;
}

const char *pid_insn_unsafe(pid_session_t *ps, const dtrace_elf_t *f,
			    uint64_t addr, const char **mnem, bool *vex)
{
	ZydisDecodedInstruction insn;
	uint8_t code[ZYDIS_MAX_INSTRUCTION_LENGTH];
	uint64_t off;
	ssize_t n;

	*mnem = NULL;
	*vex = false;
	if (pid_host->elf_vaddr_to_offset(f, addr, &off) != 0)
		return "not in the file's loaded segments";
	n = pid_host->elf_read(f, off, code, sizeof(code));
	if (n <= 0)
		return "its bytes cannot be read";
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&ps->decoder, NULL,
			code, (size_t)n, &insn)))
		return "not a valid instruction";
	*mnem = ZydisMnemonicGetString(insn.mnemonic);
	*vex = true;
	switch (insn.encoding) {
	case ZYDIS_INSTRUCTION_ENCODING_VEX:
		return "VEX-encoded";
	case ZYDIS_INSTRUCTION_ENCODING_EVEX:
		return "EVEX-encoded";
	case ZYDIS_INSTRUCTION_ENCODING_XOP:
		return "XOP-encoded";
	case ZYDIS_INSTRUCTION_ENCODING_MVEX:
		return "MVEX-encoded";
	default:
		break;
	}
	*vex = false;
	/* the kernel refuses these (ENOTSUPP); say why before it does */
	if (insn.attributes & ZYDIS_ATTRIB_HAS_LOCK)
		return "lock-prefixed";
	switch (insn.mnemonic) {
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_HLT:
		return "a trap or halt instruction";
	default:
		return NULL;
	}
}
