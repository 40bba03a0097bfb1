/* SPDX-License-Identifier: MIT */
/*
 * dt_hostsvc.h: the host table's ELF and process services (dt_hostsvc.c),
 * which dt_provider.c puts in the table.
 */
#ifndef DT_HOSTSVC_H
#define DT_HOSTSVC_H

#include <dtrace/provider.h>

#include "dt_procmaps.h"	/* host->proc->maps */

struct dt_elf_cache;

/* The services over a given cache, for the unit tests' host tables. */
int dt_hostsvc_proc_grab(struct dt_elf_cache *cache, pid_t pid,
			 dtrace_proc_t **pp, char *msg, size_t msglen);
int dt_hostsvc_elf_open(struct dt_elf_cache *cache, const char *path,
			const dtrace_elf_t **fp, char *msg, size_t msglen);
void dt_hostsvc_elf_release(struct dt_elf_cache *cache, const dtrace_elf_t *f);
int dt_hostsvc_elf_stapsdt(struct dt_elf_cache *cache, const dtrace_elf_t *f,
			   const dtrace_stapsdt_t **notes, size_t *n,
			   char *msg, size_t msglen);
int dt_hostsvc_elf_symbols(struct dt_elf_cache *cache, const dtrace_elf_t *f,
			   const dtrace_sym_t **syms, size_t *nsyms, char *msg,
			   size_t msglen);

/* The host table's: over the session's cache. */
int dt_host_proc_grab(dtrace_provider_t *pv, pid_t pid, dtrace_proc_t **pp,
		      char *msg, size_t msglen);
int dt_host_proc_modules(const dtrace_proc_t *p,
			 const dtrace_module_t **mods);
void dt_host_proc_release(dtrace_proc_t *p);
int dt_host_module_name_is(const dtrace_module_t *m, const char *name);
int dt_host_elf_symbols(dtrace_provider_t *pv, const dtrace_elf_t *f,
			const dtrace_sym_t **syms, size_t *nsyms, char *msg,
			size_t msglen);
size_t dt_host_elf_sym_by_name(const dtrace_elf_t *f, const char *name,
			       const dtrace_sym_t *const **first);
int dt_host_elf_vaddr_to_offset(const dtrace_elf_t *f, uint64_t vaddr,
				uint64_t *off);
uint64_t dt_host_elf_entry(const dtrace_elf_t *f);
const char *dt_host_elf_path(const dtrace_elf_t *f);
ssize_t dt_host_elf_read(const dtrace_elf_t *f, uint64_t off, void *buf,
			 size_t len);
/* host->bpf->kernel_btf: the engine's copy (dt_btf_kernel()). */
struct btf *dt_host_kernel_btf(dtrace_provider_t *pv);
/* host->bpf->kernel_member_offset: dt_btf_member_offset(). */
int32_t dt_host_kernel_member_offset(dtrace_provider_t *pv, const char *sou,
				     const char *member);
int dt_host_elf_open(dtrace_provider_t *pv, const char *path,
		     const dtrace_elf_t **fp, char *msg, size_t msglen);
void dt_host_elf_release(dtrace_provider_t *pv, const dtrace_elf_t *f);
int dt_host_elf_stapsdt(dtrace_provider_t *pv, const dtrace_elf_t *f,
			const dtrace_stapsdt_t **notes, size_t *n, char *msg,
			size_t msglen);
int dt_host_elf_section(const dtrace_elf_t *f, const char *name,
			uint64_t *offset, uint64_t *size);
int dt_host_elf_sym_value(const dtrace_elf_t *f, const char *name,
			  uint64_t *value);
int dt_host_elf_type(const dtrace_elf_t *f);
/* The session's ELF cache goes (after the plugins'). */
void dt_hostsvc_fini(dtrace_hdl_t *dtp);

#endif /* DT_HOSTSVC_H */
