/* SPDX-License-Identifier: MIT */
/*
 * dt_ksyms.c: the kernel's text symbols, for stack() frames and %a.
 *
 * /proc/kallsyms is read once per session, at the first kernel address
 * that is printed (a session that prints none never reads it: start-up
 * costs nothing), into an array of its text symbols (t, T, w, W) sorted
 * by address, searched by bisection.  A symbol has no size there: an
 * address belongs to the last symbol at or below it, except past
 * _etext, the end of the kernel's text, where a kernel symbol below it
 * would claim data; a user address is never looked up.  Module symbols carry their module ("[ext4]"); JIT-ed
 * BPF programs are symbols of the module "bpf".  When kallsyms shows
 * every address as 0 (not root, kptr_restrict), the table stays empty
 * and addresses print as numbers.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dt_ksyms.h"

typedef struct ksym_ent {
	uint64_t addr;
	char *name;
	const char *module;	/* shared by a run of one module's symbols */
} ksym_ent_t;

struct dt_ksyms {
	ksym_ent_t *ents;
	size_t n, room;
	uint64_t etext;		/* _etext, 0: unknown */
	char **modules;		/* the distinct module names, to free */
	size_t nmodules;
};

static const char KERNEL_MODULE[] = "vmlinux";

/* The module name of a line's "[mod]", the one of the previous symbol
 * when it is the same (kallsyms lists a module's symbols together). */
static const char *ksyms_module(struct dt_ksyms *ks, const char *mod)
{
	char *m;

	if (mod == NULL)
		return KERNEL_MODULE;
	if (ks->nmodules > 0 && strcmp(ks->modules[ks->nmodules - 1], mod) == 0)
		return ks->modules[ks->nmodules - 1];
	m = dt_strdup(mod);
	ks->modules = dt_realloc(ks->modules,
				 sizeof(*ks->modules) * (ks->nmodules + 1));
	ks->modules[ks->nmodules++] = m;
	return m;
}

/* One line "ADDR TYPE NAME [MODULE]": its text symbol into the table. */
static void ksyms_line(struct dt_ksyms *ks, char *line)
{
	char type, name[512], mod[128];
	unsigned long long addr;
	int n;

	mod[0] = '\0';
	n = sscanf(line, "%llx %c %511s [%127[^]]]", &addr, &type, name, mod);
	if (n < 3 || addr == 0)
		return;
	if (strcmp(name, "_etext") == 0 && n == 3)
		ks->etext = addr;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return;
	if (ks->n == ks->room) {
		ks->room = ks->room ? ks->room * 2 : 4096;
		ks->ents = dt_realloc(ks->ents, sizeof(*ks->ents) * ks->room);
	}
	ks->ents[ks->n++] = (ksym_ent_t){
		.addr = addr, .name = dt_strdup(name),
		.module = ksyms_module(ks, n == 4 ? mod : NULL),
	};
}

static int ksym_cmp(const void *a, const void *b)
{
	const ksym_ent_t *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static struct dt_ksyms *ksyms_load(dtrace_hdl_t *dtp)
{
	struct dt_ksyms *ks = dtp->ksyms;
	char *line = NULL;
	size_t cap = 0;
	FILE *fp;

	if (ks != NULL)
		return ks;
	ks = dtp->ksyms = dt_zalloc(sizeof(*ks));
	fp = fopen("/proc/kallsyms", "re");
	if (fp == NULL)
		return ks;
	while (getline(&line, &cap, fp) > 0)
		ksyms_line(ks, line);
	free(line);
	fclose(fp);
	qsort(ks->ents, ks->n, sizeof(*ks->ents), ksym_cmp);
	return ks;
}

bool dt_ksym_exists(const char *name)
{
	char *line = NULL, sym[512];
	size_t cap = 0;
	bool found = false;
	FILE *fp = fopen("/proc/kallsyms", "re");

	if (fp == NULL)
		return false;
	while (!found && getline(&line, &cap, fp) > 0)
		found = sscanf(line, "%*x %*c %511s", sym) == 1 &&
			strcmp(sym, name) == 0 && strchr(line, '[') == NULL;
	free(line);
	fclose(fp);
	return found;
}

bool dt_ksym_is_kernel(uint64_t pc)
{
	return pc >= 0xffff800000000000ULL;
}

bool dt_ksym_lookup(dtrace_hdl_t *dtp, uint64_t pc, dt_ksym_t *out)
{
	struct dt_ksyms *ks;
	size_t lo = 0, hi;
	const ksym_ent_t *e;

	if (!dt_ksym_is_kernel(pc))
		return false;
	ks = ksyms_load(dtp);
	hi = ks->n;
	/* the last symbol at or below pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->ents[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	e = &ks->ents[lo - 1];
	if (e->module == KERNEL_MODULE && ks->etext != 0 &&
	    e->addr < ks->etext && pc >= ks->etext)
		return false;
	out->module = e->module;
	out->name = e->name;
	out->offset = pc - e->addr;
	return true;
}

void dt_ksym_format(dtrace_hdl_t *dtp, uint64_t pc, char *buf, size_t len)
{
	dt_ksym_t s;

	if (!dt_ksym_lookup(dtp, pc, &s))
		snprintf(buf, len, "0x%" PRIx64, pc);
	else if (s.offset == 0)
		snprintf(buf, len, "%s`%s", s.module, s.name);
	else
		snprintf(buf, len, "%s`%s+0x%" PRIx64, s.module, s.name,
			 s.offset);
}

void dt_ksyms_fini(dtrace_hdl_t *dtp)
{
	struct dt_ksyms *ks = dtp->ksyms;

	if (ks == NULL)
		return;
	for (size_t i = 0; i < ks->n; i++)
		free(ks->ents[i].name);
	for (size_t i = 0; i < ks->nmodules; i++)
		free(ks->modules[i]);
	free(ks->ents);
	free(ks->modules);
	free(ks);
	dtp->ksyms = NULL;
}
