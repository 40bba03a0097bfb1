/* SPDX-License-Identifier: MIT */
/*
 * dt_unwind_mem.h: the user memory both unwinders (dt_unwind.c,
 * dt_unwind_lu.c) read.  See dt_unwind_mem.c.
 */
#ifndef DT_UNWIND_MEM_H
#define DT_UNWIND_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_elf.h"
#include "dt_rec.h"

/* The 8-byte word at user address addr as the probe saw it: from the
 * stack copy of s (at stack), with the return addresses that return
 * probes hid put back, else from the file of the module of proc that maps
 * addr.  False when neither holds it. */
bool dt_unwind_read(const dt_elf_proc_t *proc, const dt_usample_t *s,
		    const uint8_t *stack, uint64_t addr, uint64_t *word);

#endif /* DT_UNWIND_MEM_H */
