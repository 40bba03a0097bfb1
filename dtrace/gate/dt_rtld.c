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
 * The file is the one ELF reader's (dt_elf.c: its section headers), and
 * the bytes are read with pread(), never through a mapping of the file: a
 * uprobe placed without a process filter (another dtrace's exec watch, on
 * these very calls) writes its breakpoint into every mapping of the file's
 * code that can be executed, and a read-only private mapping is one.
 * Through a mapping the sweep would see int3 at those calls and lose them
 * (and lose its step at the bytes that follow).
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "dt_elf.h"
#include "dt_procmaps.h"
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

/* A section of f that holds code and takes room in the file. */
static bool code_section(const dt_elf_scn_t *sh)
{
	return (sh->flags & SHF_EXECINSTR) && sh->type != SHT_NOBITS;
}

/* The address of file offset off, through the code section holding it. */
static int64_t offset_to_addr(const dt_elf_file_t *f, uint64_t off)
{
	for (int i = 0; i < f->nscns; i++) {
		const dt_elf_scn_t *sh = &f->scns[i];

		if (code_section(sh) && off >= sh->offset &&
		    off - sh->offset < sh->size)
			return (int64_t)(off - sh->offset + sh->addr);
	}
	return -1;
}

static int elf_sites(const dt_elf_file_t *f, uint64_t hook_off,
		     uint64_t *sites, int max)
{
	int64_t hook = offset_to_addr(f, hook_off);
	int n = 0;

	if (hook < 0)
		return -ENOENT;
	for (int i = 0; n >= 0 && i < f->nscns; i++) {
		const dt_elf_scn_t *sh = &f->scns[i];
		uint8_t *code;

		if (!code_section(sh) || sh->size > (uint64_t)f->size ||
		    (code = malloc(sh->size)) == NULL)
			continue;
		if (dt_elf_read(f, sh->offset, code, sh->size) ==
		    (ssize_t)sh->size)
			n = section_sites(code, sh->size, sh->addr, sh->offset,
					  (uint64_t)hook, sites, n, max);
		free(code);
	}
	return n;
}

int dt_rtld_hook_sites(const char *path, uint64_t hook_off, uint64_t *sites,
		       int max)
{
	dt_elf_cache_t *cache = dt_elf_cache_create();
	const dt_elf_file_t *f;
	int n;

	if (cache == NULL)
		return -ENOMEM;
	n = dt_elf_open(cache, path, &f, NULL, 0);
	if (n == 0)
		n = elf_sites(f, hook_off, sites, max);
	dt_elf_cache_destroy(cache);
	return n == 0 ? -ENOENT : n;
}

/* r_brk's address mapped back to a file offset through our own mappings. */
int dt_rtld_hook(char *path, size_t len, uint64_t *offset)
{
	uint64_t brk = (uint64_t)_r_debug.r_brk;
	const dt_mapping_t *m;
	dt_mapping_t *maps;
	size_t n;
	int rc = -ENOENT;

	if (brk == 0 || dt_proc_maps(0, &maps, &n) != 0)
		return -ENOENT;
	m = dt_proc_map_at(maps, n, brk);
	if (m != NULL && dt_mapping_is_file(m)) {
		snprintf(path, len, "%s", m->path);
		*offset = brk - m->start + m->pgoff;
		rc = 0;
	}
	dt_proc_maps_free(maps, n);
	return rc;
}
