/* SPDX-License-Identifier: MIT */
/*
 * dt_ksyms.h: kernel addresses as symbols, from /proc/kallsyms
 * (dt_ksyms.c).
 */
#ifndef DT_KSYMS_H
#define DT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "dt_impl.h"

/* What a kernel address is: its module ("vmlinux" for the kernel's own
 * text, a module's or "bpf" for JIT-ed programs, as kallsyms names
 * them), the function it lies in and the offset into it.  The strings
 * belong to the session's table. */
typedef struct dt_ksym {
	const char *module;
	const char *name;
	uint64_t offset;
} dt_ksym_t;

/* Whether pc lies in the kernel's half of the address space (x86-64:
 * from 0xffff800000000000), where no user address does. */
bool dt_ksym_is_kernel(uint64_t pc);

/* Look up pc among the kernel's text symbols, read at the first call of
 * the session (never before a kernel address is printed).  False when
 * pc is in no known function, or kallsyms hides the addresses (zeros for
 * the unprivileged). */
bool dt_ksym_lookup(dtrace_hdl_t *dtp, uint64_t pc, dt_ksym_t *ks);

/* pc as DTrace prints a kernel address: "module`function+0xoff" (no
 * "+0x0" at a function's start), or "0x..." when unknown. */
void dt_ksym_format(dtrace_hdl_t *dtp, uint64_t pc, char *buf, size_t len);

/* Whether /proc/kallsyms names a symbol of the kernel itself (not a
 * module's) called name, of any kind (text or, on a kernel built with
 * CONFIG_KALLSYMS_ALL, data); read anew at each call, which only a
 * compile error makes. */
bool dt_ksym_exists(const char *name);

/* Free the table (dtp->ksyms). */
void dt_ksyms_fini(dtrace_hdl_t *dtp);

#endif /* DT_KSYMS_H */
