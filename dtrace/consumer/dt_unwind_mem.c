/* SPDX-License-Identifier: MIT */
/*
 * dt_unwind_mem.c: the user memory an unwinder reads, for both backends
 * (libdw's in dt_unwind.c, libunwind's in dt_unwind_lu.c).
 *
 * The process is not stopped, and may be gone, when its stack is
 * unwound: what is known of its memory is the stack copy that travelled
 * in the record (dt_usample_t) and the files of its modules as dt_elf
 * opened them, at their run-time addresses (text and read-only data do
 * not change).  Anything else is unknown, and ends a walk that needs it.
 *
 * Invariants: a stack is never read outside its copy; a file is read
 * only inside the ranges its module maps.
 */
#include <string.h>

#include "dt_unwind_mem.h"

/* A word of a module's file, at run-time address addr. */
static bool read_module(const dt_elf_proc_t *proc, uint64_t addr,
			uint64_t *word)
{
	const dt_elf_module_t *m = dt_elf_proc_module_at(proc, addr);

	if (m == NULL)
		return false;
	for (int i = 0; i < m->nranges; i++) {
		const dt_elf_range_t *r = &m->ranges[i];

		if (addr < r->start || addr + 8 > r->end)
			continue;
		return dt_elf_read(m->file, r->offset + (addr - r->start),
				   word, 8) == 8;
	}
	return false;
}

bool dt_unwind_read(const dt_elf_proc_t *proc, const dt_usample_t *s,
		    const uint8_t *stack, uint64_t addr, uint64_t *word)
{
	if (addr >= s->base && addr - s->base <= s->len &&
	    s->len - (addr - s->base) >= 8) {
		memcpy(word, stack + (addr - s->base), 8);
	} else if (!read_module(proc, addr, word)) {
		return false;
	}
	for (int i = 0; i < DT_USAMPLE_URETS && s->uret[i].slot != 0; i++)
		if (s->uret[i].slot == addr)	/* hijacked by a uretprobe */
			*word = s->uret[i].ret;
	return true;
}
