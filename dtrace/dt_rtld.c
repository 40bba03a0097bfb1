/* SPDX-License-Identifier: MIT */
/*
 * dt_rtld.c: where to watch the dynamic loader's debugger hook cheaply.
 *
 * The loader calls its hook (_r_debug.r_brk, _dl_debug_state in glibc's
 * ld.so) around every change to a process's libraries, twice while every
 * program starts.  The hook's first instruction is a ret, which the
 * kernel's uprobes cannot emulate: a uprobe there is single-stepped out of
 * line, and the first such hit in a process also sets up that process's
 * out-of-line area: about 100 us more per exec on the whole machine,
 * measured on the development machines.  The call instructions that reach
 * the hook are emulated (about 30 us per exec for all of them together), and
 * a uprobe there fires at the same moments, with the same state of
 * _r_debug.  So the exec watch probes the calls.
 *
 * They are found by decoding the executable sections of ld.so from their
 * first byte to their last (glibc's code holds no data, so a linear sweep
 * sees every instruction; a byte Zydis cannot decode is stepped over), and
 * keeping each direct call or jump whose target is the hook.  A tail jump
 * to the hook is kept too, for the same reason.
 *
 * The bytes are read with read(), never through a mapping of the file: a
 * uprobe placed without a process filter (another dtrace's exec watch, on
 * these very calls) writes its breakpoint into every mapping of the file's
 * code that can be executed, and a read-only private mapping is one.
 * Through a mapping the sweep would see int3 at those calls and lose them
 * (and lose its step at the bytes that follow).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "dt_rtld.h"

/* The direct branch at code[0..len) (address addr) leads to target. */
static bool branches_to(const ZydisDecodedInstruction *insn, uint64_t addr,
			uint64_t target)
{
	if (insn->mnemonic != ZYDIS_MNEMONIC_CALL &&
	    insn->mnemonic != ZYDIS_MNEMONIC_JMP)
		return false;
	if (insn->raw.imm[0].size == 0 || !insn->raw.imm[0].is_relative)
		return false;
	return addr + insn->length + (uint64_t)insn->raw.imm[0].value.s ==
	       target;
}

/* Sites of one executable section whose bytes are code (at address base,
 * file offset fileoff); their file offsets are added to sites[n..]. */
static int section_sites(const uint8_t *code, size_t size, uint64_t base,
			 uint64_t fileoff, uint64_t hook, uint64_t *sites,
			 int n, int max)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction insn;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	for (size_t off = 0; off < size;) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL,
				code + off, size - off, &insn))) {
			off++;
			continue;
		}
		if (branches_to(&insn, base + off, hook)) {
			if (n == max)
				return -E2BIG;
			sites[n++] = fileoff + off;
		}
		off += insn.length;
	}
	return n;
}

/* The address of file offset off, through the code section holding it. */
static int64_t offset_to_addr(Elf *elf, uint64_t off)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
			continue;
		if (off >= sh.sh_offset && off < sh.sh_offset + sh.sh_size)
			return (int64_t)(off - sh.sh_offset + sh.sh_addr);
	}
	return -1;
}

static int elf_sites(Elf *elf, uint64_t hook_off, uint64_t *sites, int max)
{
	int64_t hook = offset_to_addr(elf, hook_off);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int n = 0;

	if (hook < 0)
		return -ENOENT;
	while (n >= 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL ||
		    !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_type == SHT_NOBITS)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d == NULL || d->d_buf == NULL || d->d_size != sh.sh_size)
			continue;
		n = section_sites(d->d_buf, d->d_size, sh.sh_addr,
				  sh.sh_offset, (uint64_t)hook, sites, n, max);
	}
	return n;
}

int dt_rtld_hook_sites(const char *path, uint64_t hook_off, uint64_t *sites,
		       int max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);	/* not mapped: above */
	int n = elf ? elf_sites(elf, hook_off, sites, max) : -EINVAL;
	if (elf)
		elf_end(elf);
	close(fd);
	return n == 0 ? -ENOENT : n;
}

/* r_brk's address mapped back to a file offset through /proc/self/maps. */
int dt_rtld_hook(char *path, size_t len, uint64_t *offset)
{
	uint64_t brk = (uint64_t)_r_debug.r_brk;
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "r");
	int rc = -ENOENT;

	if (f == NULL || brk == 0) {
		if (f)
			fclose(f);
		return -ENOENT;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long lo, hi, off;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &lo, &hi,
			   &off, &pos) < 3 || pos == 0)
			continue;
		if (brk < lo || brk >= hi || line[pos] != '/')
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, len, "%s", line + pos);
		*offset = brk - lo + off;
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}
