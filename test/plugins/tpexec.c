/* SPDX-License-Identifier: MIT */
/*
 * tpexec.c: a plugin built out of the tree on the tracepoint
 * sched:sched_process_exec, whose filename is a __data_loc field (a
 * string whose bytes follow the record), for test/sh/plugins/plugin_tp_data_loc.sh.
 *
 *	tpexec:::exec	arg0 the string's offset in the record, arg1 its
 *			length with the NUL (the field's low and high 16
 *			bits, as host->sites->tp_field() finds it by its name)
 */
#include <errno.h>
#include <stddef.h>

#include <dtrace/provider.h>

static const dtrace_host_t *host;
static uint32_t filename_off;

static int te_provide(dtrace_provider_t *pv, void *data,
		      const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->probes->glob_match(pdp->prv, "tpexec") ||
	    !host->probes->glob_match(pdp->prb, "exec") ||
	    host->probes->lookup(pv, "tpexec", "", "", "exec"))
		return 0;
	return host->probes->insert(pv, "tpexec", "", "", "exec", NULL) ? 1
								      : -errno;
}

static int te_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	dtrace_event_t ev = {
		.size = sizeof(ev), .type = DTRACE_EVENT_TRACEPOINT,
		.category = "sched", .name = "sched_process_exec",
	};
	uint32_t size;

	(void)data;
	int rc = host->sites->tp_field(pv, "sched", "sched_process_exec",
				       "filename", &filename_off, &size);
	if (rc < 0)
		return rc;
	if (size != 4)
		return -EINVAL;
	int64_t cookie = host->sites->event(pv, &ev);
	return cookie < 0 ? (int)cookie
			  : host->sites->overlay(pv, cookie, 0, prp);
}

/* argv[0], argv[1] = the __data_loc word's offset and length */
static int te_trampoline(dtrace_provider_t *pv, void *data,
			 dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int argv = offsetof(dtrace_mstate_t, argv);

	(void)pv, (void)data, (void)tr;
	host->bpf->emit(em, DT_LOAD(BPF_W, DT_R1, DTRACE_REG_CTX,
			(int16_t)filename_off));
	host->bpf->emit(em, DT_MOV64_REG(DT_R2, DT_R1));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R1, 0xffff));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_RSH, DT_R2, 16));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv, DT_R1));
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv + 8, DT_R2));
	return 0;
}

static const dtrace_provider_ops_t te_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "tpexec",
	.provide = te_provide,
	.enable = te_enable,
	.trampoline = te_trampoline,
};

DTRACE_PROVIDER(te_ops, host)
