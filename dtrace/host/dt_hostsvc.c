/* SPDX-License-Identifier: MIT */
/*
 * dt_hostsvc.c: the host table's ELF and process services, for plugins
 * (host->proc->grab, host->elf->symbols...).
 *
 * They are the engine's own readers (dt_elf.c) over one cache per session
 * (dtp->elf), so a file a plugin probes and the file ustack() symbolizes
 * are read once and the same way.  The public types are views: a
 * dtrace_elf_t is a dt_elf_file_t, a dtrace_sym_t is a dt_elf_sym_t, and a
 * dtrace_proc_t holds a dt_elf_proc_t with the public view of its modules.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dt_impl.h"
#include "dt_btf.h"
#include "dt_elf.h"
#include "dt_hostsvc.h"

struct dtrace_proc {
	dt_elf_proc_t *proc;
	dtrace_module_t *mods;	/* one per proc->mods[i] */
};

static const dt_elf_file_t *file_of(const dtrace_elf_t *f)
{
	return (const dt_elf_file_t *)(const void *)f;
}

/* The session's ELF cache, made on first use. */
static dt_elf_cache_t *session_cache(dtrace_hdl_t *dtp)
{
	if (dtp->elf == NULL)
		dtp->elf = dt_elf_cache_create();
	return dtp->elf;
}

void dt_hostsvc_fini(dtrace_hdl_t *dtp)
{
	if (dtp->elf != NULL)
		dt_elf_cache_destroy(dtp->elf);
	dtp->elf = NULL;
}

static void module_view(dtrace_module_t *v, const dt_elf_module_t *m)
{
	v->name = m->name;
	v->path = m->path;
	v->file = (const dtrace_elf_t *)(const void *)m->file;
	v->file_path = m->file->path;
	v->is_exe = m->is_exe;
	v->bias = m->bias;
	v->lo = m->lo;
	v->hi = m->hi;
}

int dt_hostsvc_proc_grab(dt_elf_cache_t *cache, pid_t pid, dtrace_proc_t **pp,
			 char *msg, size_t msglen)
{
	dtrace_proc_t *p = cache ? calloc(1, sizeof(*p)) : NULL;

	if (p == NULL) {
		free(p);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	int rc = dt_elf_proc_modules(cache, pid, &p->proc, msg, msglen);
	if (rc != 0) {
		free(p);
		return rc;
	}
	p->mods = calloc((size_t)p->proc->nmods + 1, sizeof(*p->mods));
	if (p->mods == NULL) {
		dt_elf_proc_free(p->proc);
		free(p);
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < p->proc->nmods; i++)
		module_view(&p->mods[i], &p->proc->mods[i]);
	*pp = p;
	return 0;
}

int dt_host_proc_grab(dtrace_provider_t *pv, pid_t pid, dtrace_proc_t **pp,
		      char *msg, size_t msglen)
{
	return dt_hostsvc_proc_grab(session_cache(pv->dtp), pid, pp, msg,
				    msglen);
}

int dt_host_proc_modules(const dtrace_proc_t *p, const dtrace_module_t **mods)
{
	*mods = p->mods;
	return p->proc->nmods;
}

struct btf *dt_host_kernel_btf(dtrace_provider_t *pv)
{
	return dt_btf_kernel(pv->dtp);
}

int32_t dt_host_kernel_member_offset(dtrace_provider_t *pv, const char *sou,
				     const char *member)
{
	return dt_btf_member_offset(pv->dtp, sou, member);
}

int dt_hostsvc_elf_open(dt_elf_cache_t *cache, const char *path,
			const dtrace_elf_t **fp, char *msg, size_t msglen)
{
	const dt_elf_file_t *f;

	if (cache == NULL) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	int rc = dt_elf_open(cache, path, &f, msg, msglen);
	if (rc == 0)
		*fp = (const dtrace_elf_t *)(const void *)f;
	return rc;
}

int dt_host_elf_open(dtrace_provider_t *pv, const char *path,
		     const dtrace_elf_t **fp, char *msg, size_t msglen)
{
	return dt_hostsvc_elf_open(session_cache(pv->dtp), path, fp, msg,
				   msglen);
}

void dt_hostsvc_elf_release(dt_elf_cache_t *cache, const dtrace_elf_t *f)
{
	if (cache != NULL && f != NULL)
		dt_elf_release(cache, (const dt_elf_file_t *)(const void *)f);
}

void dt_host_elf_release(dtrace_provider_t *pv, const dtrace_elf_t *f)
{
	dt_hostsvc_elf_release(session_cache(pv->dtp), f);
}

int dt_hostsvc_elf_stapsdt(dt_elf_cache_t *cache, const dtrace_elf_t *f,
			   const dtrace_stapsdt_t **notes, size_t *n,
			   char *msg, size_t msglen)
{
	if (cache == NULL) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	return dt_elf_stapsdt(cache, file_of(f), notes, n, msg, msglen);
}

int dt_host_elf_stapsdt(dtrace_provider_t *pv, const dtrace_elf_t *f,
			const dtrace_stapsdt_t **notes, size_t *n, char *msg,
			size_t msglen)
{
	return dt_hostsvc_elf_stapsdt(session_cache(pv->dtp), f, notes, n, msg,
				      msglen);
}

int dt_host_elf_section(const dtrace_elf_t *f, const char *name,
			uint64_t *offset, uint64_t *size)
{
	const dt_elf_scn_t *scn = dt_elf_section(file_of(f), name);

	if (scn == NULL || scn->type == SHT_NOBITS)
		return -ENOENT;
	*offset = scn->offset;
	*size = scn->size;
	return 0;
}

int dt_host_elf_sym_value(const dtrace_elf_t *f, const char *name,
			  uint64_t *value)
{
	return dt_elf_sym_value(file_of(f), name, value);
}

int dt_host_elf_type(const dtrace_elf_t *f)
{
	return file_of(f)->etype;
}

void dt_host_proc_release(dtrace_proc_t *p)
{
	if (p == NULL)
		return;
	dt_elf_proc_free(p->proc);
	free(p->mods);
	free(p);
}

int dt_host_module_name_is(const dtrace_module_t *m, const char *name)
{
	dt_elf_module_t em = {
		.name = (char *)m->name, .path = (char *)m->path,
		.is_exe = m->is_exe,
	};

	return dt_elf_module_name_is(&em, name);
}

int dt_hostsvc_elf_symbols(dt_elf_cache_t *cache, const dtrace_elf_t *f,
			   const dtrace_sym_t **syms, size_t *nsyms, char *msg,
			   size_t msglen)
{
	const dt_elf_file_t *ef = file_of(f);

	if (cache == NULL) {
		snprintf(msg, msglen, "out of memory");
		return -ENOMEM;
	}
	int rc = dt_elf_symbols(cache, ef, msg, msglen);
	if (rc != 0)
		return rc;
	*syms = ef->syms;
	*nsyms = ef->nsyms;
	return 0;
}

int dt_host_elf_symbols(dtrace_provider_t *pv, const dtrace_elf_t *f,
			const dtrace_sym_t **syms, size_t *nsyms, char *msg,
			size_t msglen)
{
	return dt_hostsvc_elf_symbols(session_cache(pv->dtp), f, syms, nsyms,
				      msg, msglen);
}

size_t dt_host_elf_sym_by_name(const dtrace_elf_t *f, const char *name,
			       const dtrace_sym_t *const **first)
{
	dt_elf_sym_t *const *p = NULL;
	size_t n = dt_elf_sym_by_name(file_of(f), name, &p);

	*first = (const dtrace_sym_t *const *)p;
	return n;
}

int dt_host_elf_vaddr_to_offset(const dtrace_elf_t *f, uint64_t vaddr,
				uint64_t *off)
{
	return dt_elf_vaddr_to_offset(file_of(f), vaddr, off);
}

uint64_t dt_host_elf_entry(const dtrace_elf_t *f)
{
	return file_of(f)->entry;
}

/* Where f was opened from, for the session. */
const char *dt_host_elf_path(const dtrace_elf_t *f)
{
	return file_of(f)->path;
}

ssize_t dt_host_elf_read(const dtrace_elf_t *f, uint64_t off, void *buf,
			 size_t len)
{
	return dt_elf_read(file_of(f), off, buf, len);
}
