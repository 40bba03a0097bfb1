/* SPDX-License-Identifier: MIT */
/*
 * dt_btf.h: D types from the kernel's BTF, for the arguments of kernel
 * probes (dt_btf.c).
 */
#ifndef DT_BTF_H
#define DT_BTF_H

#include "dt_impl.h"

/* Typed arguments of a probe its provider marked DTRACE_PROBE_KERNEL:
 * each argument type name the provider gave ("struct file *") that names
 * a type of the kernel's BTF becomes that type, complete, over the
 * engine's reading of the name.  Nothing changes without BTF. */
void dt_btf_probe_args(dtrace_hdl_t *dtp, dtrace_probe_t *prp);
/* The D type of a kernel type's name ("struct task_struct *",
 * "pid_t"), from the kernel's BTF; NULL without BTF or when BTF does not
 * name its base. */
dt_type_t *dt_btf_type(dtrace_hdl_t *dtp, const char *name);
/* The kernel typedef that a scoped name gives (vmlinux`pid_t), from its
 * BTF; NULL for any other name (vmlinux`cpu_number, a variable). */
dt_type_t *dt_btf_scoped_typedef(dtrace_hdl_t *dtp, const char *ref);
/* Complete the struct or union tag t from the kernel's BTF, once kernel
 * types are in use (a kernel probe's arguments were typed): a member
 * pointer to a struct is an incomplete tag until a script goes through
 * it.  Returns whether t is complete. */
bool dt_btf_complete(dtrace_hdl_t *dtp, dt_type_t *t);

/* The kernel's BTF, read once per session (dtp->kbtf); NULL without it. */
struct btf *dt_btf_kernel(dtrace_hdl_t *dtp);

/* The byte offset of member in the kernel's struct sou (members of
 * anonymous members included), or -1 when it is unknown. */
int32_t dt_btf_member_offset(dtrace_hdl_t *dtp, const char *sou,
			     const char *member);

/* What a kernel symbol (`name) is to a D program: */
typedef enum dt_ksym_kind {
	DT_KSYM_UNKNOWN,	/* no symbol of the kernel's */
	DT_KSYM_UNTYPED,	/* in kallsyms, without a BTF type */
	DT_KSYM_PERCPU,		/* a per-CPU variable of BTF: *type, and its
				   distance from the per-CPU variable
				   runqueues in the per-CPU area, *from_rq */
} dt_ksym_kind_t;
/* Only per-CPU variables have a VAR in the kernel's BTF. */
dt_ksym_kind_t dt_btf_kernel_symbol(dtrace_hdl_t *dtp, const char *name,
				    dt_type_t **type, int64_t *from_rq);

/* Free the kernel's BTF and its index. */
void dt_btf_fini(dtrace_hdl_t *dtp);

#endif /* DT_BTF_H */
