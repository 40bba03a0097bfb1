/* SPDX-License-Identifier: MIT */
/*
 * rawtp.c: a plugin built out of the tree on the raw tracepoint
 * sys_enter (DTRACE_EVENT_RAW_TRACEPOINT, interface 3.2), for
 * test/sh/plugins/plugin_raw_tracepoint.sh.
 *
 *	rawtp:::sys_enter	arg0 the system call's number (the raw
 *				tracepoint's second argument)
 */
#include <errno.h>
#include <stddef.h>

#include <dtrace/provider.h>

static const dtrace_host_t *host;

static int rt_provide(dtrace_provider_t *pv, void *data,
		      const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->probes->glob_match(pdp->prv, "rawtp") ||
	    !host->probes->glob_match(pdp->prb, "sys_enter") ||
	    host->probes->lookup(pv, "rawtp", "", "", "sys_enter"))
		return 0;
	dtrace_probe_t *p = host->probes->insert(pv, "rawtp", "", "",
						 "sys_enter", NULL);
	if (p == NULL)
		return -errno;
	host->probes->attr(pv, p, DTRACE_PROBE_IN_KERNEL);
	return 1;
}

static int rt_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	dtrace_event_t ev = {
		.size = sizeof(ev), .type = DTRACE_EVENT_RAW_TRACEPOINT,
		.name = "sys_enter", .kind = 0,
	};
	int64_t cookie = host->sites->event(pv, &ev);

	(void)data;
	return cookie < 0 ? (int)cookie
			  : host->sites->overlay(pv, cookie, 0, prp);
}

/* argv[0] = args[1] of the raw tracepoint: the call's number */
static int rt_trampoline(dtrace_provider_t *pv, void *data,
			 dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	(void)pv, (void)data, (void)tr;
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			DTRACE_CTX_TARG(1)));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE,
			offsetof(dtrace_mstate_t, argv), DT_R1));
	return 0;
}

static const dtrace_provider_ops_t rt_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "rawtp",
	.provide = rt_provide,
	.enable = rt_enable,
	.trampoline = rt_trampoline,
};

DTRACE_PROVIDER(rt_ops, host)
