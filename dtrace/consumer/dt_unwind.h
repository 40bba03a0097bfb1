/* SPDX-License-Identifier: MIT */
/*
 * dt_unwind.h: user stacks unwound in the consumer from the copy of the
 * stack and registers a probe took (dt_usample_t), with the call frame
 * information of the process's modules.  See dt_unwind.c.
 */
#ifndef DT_UNWIND_H
#define DT_UNWIND_H

#include "dt_impl.h"
#include "dt_elf.h"
#include "dt_rec.h"

typedef struct dt_unwind dt_unwind_t;

/* An unwinder for the modules of proc (which must outlive it), with the
 * backend which (dt_unwinder_t, -x unwinder); NULL when out of memory. */
dt_unwind_t *dt_unwind_create(const dt_elf_proc_t *proc, int which);
void dt_unwind_destroy(dt_unwind_t *uw);

/* Unwind the sample s, whose stack bytes (s->len of them) are at stack:
 * up to max PCs into pcs, innermost first (the probed PC, then return
 * addresses).  Returns how many. */
int dt_unwind(dt_unwind_t *uw, const dt_usample_t *s, const uint8_t *stack,
	      uint64_t *pcs, int max);

#endif /* DT_UNWIND_H */
