/* SPDX-License-Identifier: MIT */
/*
 * unit_elfhost.h: the ELF, note and mapping services of a host table for
 * tests that run a plugin's sources without a session: the engine's own
 * services (dt_hostsvc.c) over one ELF cache of the test's, made on first
 * use.  UNIT_ELF_HOST fills those fields of a dtrace_host_t.
 */
#ifndef UNIT_ELFHOST_H
#define UNIT_ELFHOST_H

#include <dtrace/provider.h>

#include "dt_elf.h"
#include "dt_hostsvc.h"

static dt_elf_cache_t *unit_elf_cache;

static dt_elf_cache_t *unit_elf_cache_get(void)
{
	if (unit_elf_cache == NULL)
		unit_elf_cache = dt_elf_cache_create();
	return unit_elf_cache;
}

static int unit_elf_open(dtrace_provider_t *pv, const char *path,
			 const dtrace_elf_t **fp, char *msg, size_t msglen)
{
	(void)pv;
	return dt_hostsvc_elf_open(unit_elf_cache_get(), path, fp, msg, msglen);
}

static int unit_elf_stapsdt(dtrace_provider_t *pv, const dtrace_elf_t *f,
			    const dtrace_stapsdt_t **notes, size_t *n,
			    char *msg, size_t msglen)
{
	(void)pv;
	return dt_hostsvc_elf_stapsdt(unit_elf_cache_get(), f, notes, n, msg,
				      msglen);
}

static void unit_elf_release(dtrace_provider_t *pv, const dtrace_elf_t *f)
{
	(void)pv;
	dt_hostsvc_elf_release(unit_elf_cache_get(), f);
}

/* The files read so far go (a file rewritten under the same identity is
 * then read again). */
static inline void unit_elf_cache_drop(void)
{
	dt_elf_cache_destroy(unit_elf_cache);
	unit_elf_cache = NULL;
}

/* The host's tables of ELF files and processes, for a test's host. */
static const dtrace_host_elf_t unit_host_elf = {
	.size = sizeof(dtrace_host_elf_t),
	.open = unit_elf_open, .stapsdt = unit_elf_stapsdt,
	.release = unit_elf_release, .section = dt_host_elf_section,
	.sym_value = dt_host_elf_sym_value, .type = dt_host_elf_type,
	.read = dt_host_elf_read,
};
static const dtrace_host_proc_t unit_host_proc = {
	.size = sizeof(dtrace_host_proc_t),
	.maps = dt_proc_maps, .maps_free = dt_proc_maps_free,
};

#endif /* UNIT_ELFHOST_H */
