/* SPDX-License-Identifier: MIT */
/*
 * dt_unwind_lu.h: the libunwind backend of dt_unwind (-x
 * unwinder=libunwind).  See dt_unwind_lu.c.
 */
#ifndef DT_UNWIND_LU_H
#define DT_UNWIND_LU_H

#include <stdint.h>

#include "dt_elf.h"
#include "dt_rec.h"

typedef struct dt_unwind_lu dt_unwind_lu_t;

/* As dt_unwind_create(), dt_unwind_destroy() and dt_unwind(). */
dt_unwind_lu_t *dt_unwind_lu_create(const dt_elf_proc_t *proc);
void dt_unwind_lu_destroy(dt_unwind_lu_t *lu);
int dt_unwind_lu(dt_unwind_lu_t *lu, const dt_usample_t *s,
		 const uint8_t *stack, uint64_t *pcs, int max);

#endif /* DT_UNWIND_LU_H */
