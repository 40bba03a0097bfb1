/* SPDX-License-Identifier: MIT */
/*
 * ucall.c: an example provider plugin on a uprobe.  One probe,
 * ucall:::entry, at the entry of one function of one file, in every
 * process that maps the file:
 *
 *	dtrace -x plugindir=. -x ucall.path=/usr/lib/x86_64-linux-gnu/libc.so.6 \
 *	    -x ucall.func=getpid -n 'ucall:::entry { @[execname] = count(); }'
 *
 * arg0 and arg1 are the function's first two integer arguments.  The
 * plugin finds the function through the engine's ELF services (its
 * symbol, then the file offset of its address), places one uprobe there
 * (host->sites->uprobe) and puts its probe on it (overlay); its trampoline
 * copies the argument registers into args[].  Build it with the Makefile
 * beside it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <dtrace/provider.h>

static const dtrace_host_t *host;
static char *path;		/* -x ucall.path */
static char *func;		/* -x ucall.func */

static int ucall_provide(dtrace_provider_t *pv, void *data,
			 const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->probes->glob_match(pdp->prv, "ucall") ||
	    !host->probes->glob_match(pdp->prb, "entry") ||
	    host->probes->lookup(pv, "ucall", "", "", "entry") != NULL)
		return 0;
	return host->probes->insert(pv, "ucall", "", "", "entry", NULL)
		? 1 : -errno;
}

/* The file offset of func's first instruction in path, or a negative
 * errno after saying why. */
static int64_t function_offset(dtrace_provider_t *pv)
{
	const dtrace_elf_t *f;
	const dtrace_sym_t *syms;
	const dtrace_sym_t *const *first;
	size_t nsyms;
	uint64_t off;
	char msg[256];
	int err;

	err = host->elf->open(pv, path, &f, msg, sizeof(msg));
	if (err == 0)
		err = host->elf->symbols(pv, f, &syms, &nsyms, msg,
					 sizeof(msg));
	if (err != 0) {
		host->report->error(pv, "ucall: %s: %s", path, msg);
		return err;
	}
	if (host->elf->sym_by_name(f, func, &first) == 0 ||
	    host->elf->vaddr_to_offset(f, first[0]->addr, &off) != 0) {
		host->report->error(pv, "ucall: %s has no function %s",
				    path, func);
		return -ENOENT;
	}
	return (int64_t)off;
}

static int ucall_enable(dtrace_provider_t *pv, void *data,
			dtrace_probe_t *prp)
{
	dtrace_uprobe_t up = { .path = path };
	int64_t off, cookie;

	(void)data;
	if (path == NULL || func == NULL) {
		host->report->error(pv, "ucall: give -x ucall.path and "
				    "-x ucall.func");
		return -EINVAL;
	}
	off = function_offset(pv);
	if (off < 0)
		return (int)off;
	up.offset = (uint64_t)off;
	cookie = host->sites->uprobe(pv, &up);	/* pid 0: every process */
	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, 0, prp);
}

/* The context is the registers at the function's entry: the System V
 * calling convention's first two integer arguments. */
static int ucall_trampoline(dtrace_provider_t *pv, void *data,
			    dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int argv = offsetof(dtrace_mstate_t, argv);

	(void)pv, (void)data, (void)tr;
	for (int i = 0; i < 2; i++) {
		host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
				DTRACE_CTX_ARG(i)));
		host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE,
				argv + 8 * i, DT_R1));
	}
	return 0;
}

static const dtrace_option_t ucall_options[] = {
	{ "path", "the executable or library that holds the function" },
	{ "func", "the function whose entry ucall:::entry is" },
	{ NULL, NULL },
};

static int ucall_set_option(dtrace_provider_t *pv, void *data,
			    const char *name, const char *value)
{
	char **slot = strcmp(name, "path") == 0 ? &path : &func;

	(void)data;
	if (value == NULL || *value == '\0') {
		host->report->error(pv, "ucall: %s wants a value", name);
		return -EINVAL;
	}
	free(*slot);
	*slot = strdup(value);
	return *slot != NULL ? 0 : -ENOMEM;
}


static const dtrace_provider_ops_t ucall_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "ucall",
	.provide = ucall_provide,
	.enable = ucall_enable,
	.trampoline = ucall_trampoline,
	.options = ucall_options,
	.set_option = ucall_set_option,
};

DTRACE_PROVIDER(ucall_ops, host)
