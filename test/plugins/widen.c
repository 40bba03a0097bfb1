/* SPDX-License-Identifier: MIT */
/*
 * widen.c: a plugin whose probe first fires in one process, then, from its
 * first poll() on, in every process: widen:::hit, on the instruction at
 * offset (-x widen.offset=N) of the file (-x widen.path=P), first for the
 * process -x widen.pid=N only.  arg0 is the first integer argument of the
 * function there.  Once widened, its underlying probe fires in every
 * process, and in process N still once per hit, not twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dtrace/provider.h>

static const dtrace_host_t *host;
static char *path;
static uint64_t offset;
static pid_t pid;
static dtrace_probe_t *hit;
static int widened;

static int widen_provide(dtrace_provider_t *pv, void *data,
			 const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->probes->glob_match(pdp->prv, "widen") ||
	    host->probes->lookup(pv, "widen", "", "", "hit") != NULL)
		return 0;
	hit = host->probes->insert(pv, "widen", "", "", "hit", NULL);
	return hit != NULL ? 1 : -errno;
}

/* Place the probe's uprobe for process p (0: every process). */
static int place(dtrace_provider_t *pv, pid_t p)
{
	dtrace_uprobe_t up = { .path = path, .offset = offset, .pid = p };
	int64_t cookie = host->sites->uprobe(pv, &up);

	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, p, hit);
}

static int widen_enable(dtrace_provider_t *pv, void *data,
			dtrace_probe_t *prp)
{
	(void)data, (void)prp;
	if (path == NULL || pid == 0) {
		host->report->error(pv,
			"widen: give -x widen.path, .offset and .pid");
		return -EINVAL;
	}
	return place(pv, pid);
}

static int widen_poll(dtrace_provider_t *pv, void *data)
{
	(void)data;
	if (widened || hit == NULL)
		return 0;
	widened = 1;
	return place(pv, 0);
}

static int widen_trampoline(dtrace_provider_t *pv, void *data,
			    dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	(void)pv, (void)data, (void)tr;
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			DTRACE_CTX_ARG(0)));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE,
			offsetof(dtrace_mstate_t, argv), DT_R1));
	return 0;
}

static const dtrace_option_t widen_options[] = {
	{ "path", "the file to probe" },
	{ "offset", "the file offset of the instruction" },
	{ "pid", "the process it fires in first" },
	{ NULL, NULL },
};

static int widen_set_option(dtrace_provider_t *pv, void *data,
			    const char *name, const char *value)
{
	(void)data;
	if (value == NULL) {
		host->report->error(pv, "widen: %s wants a value", name);
		return -EINVAL;
	}
	if (strcmp(name, "path") == 0)
		return (path = strdup(value)) != NULL ? 0 : -ENOMEM;
	if (strcmp(name, "offset") == 0)
		offset = strtoull(value, NULL, 0);
	else
		pid = (pid_t)strtol(value, NULL, 0);
	return 0;
}

static const dtrace_provider_ops_t widen_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "widen",
	.provide = widen_provide,
	.enable = widen_enable,
	.trampoline = widen_trampoline,
	.poll = widen_poll,
	.options = widen_options,
	.set_option = widen_set_option,
};

DTRACE_PROVIDER(widen_ops, host)
