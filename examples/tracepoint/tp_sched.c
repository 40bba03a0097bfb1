/* SPDX-License-Identifier: MIT */
/*
 * tp_sched.c: a provider plugin on a kernel tracepoint, built against the
 * installed headers only (see the Makefile beside it).
 *
 * One probe, tp_sched:::process_fork, on the tracepoint
 * sched:sched_process_fork, which the kernel fires in the parent when a
 * process or thread is created:
 *
 *	arg0	pid_t	the parent's process id
 *	arg1	pid_t	the child's id (of its first thread)
 *
 *	dtrace -x plugindir=. -n 'tp_sched:::process_fork { @[execname] = count(); }'
 *
 * The program's context is the tracepoint's record, not registers: the
 * trampoline reads the two fields at the offsets the kernel's format file
 * gives (host->sites->tp_field), found once when the probe is enabled.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <dtrace/provider.h>

#define TP_PROVIDER	"tp_sched"
#define TP_CATEGORY	"sched"
#define TP_EVENT	"sched_process_fork"
#define TP_KIND		0	/* our one family of underlying probes */

static const dtrace_host_t *host;

/* Where the pids are in the record; filled by enable(). */
static uint32_t parent_off, child_off;

static int tp_provide(dtrace_provider_t *pv, void *data,
		      const dtrace_probedesc_t *pdp)
{
	(void)data;
	if (!host->probes->glob_match(pdp->prv, TP_PROVIDER) ||
	    host->probes->lookup(pv, TP_PROVIDER, "", "", "process_fork"))
		return 0;
	if (host->probes->insert(pv, TP_PROVIDER, "", "", "process_fork",
				 NULL) == NULL)
		return -errno;
	return 1;
}

static int tp_probe_args(dtrace_provider_t *pv, void *data,
			 const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	(void)pv, (void)data, (void)prp;
	for (int i = 0; i < 2; i++) {
		args[i].native = "pid_t";
		args[i].xlate = NULL;
		args[i].mapping = i;
	}
	return 2;
}

/* The offset of a pid field, which must be 4 bytes wide. */
static int pid_field(dtrace_provider_t *pv, const char *field, uint32_t *off)
{
	uint32_t size;
	int rc = host->sites->tp_field(pv, TP_CATEGORY, TP_EVENT, field, off,
				       &size);

	if (rc < 0)
		return rc;	/* the engine said why */
	if (size != 4) {
		host->report->error(pv,
				    "tp_sched: field %s of %s:%s is %u bytes, "
				    "not a pid",
				    field, TP_CATEGORY, TP_EVENT, size);
		return -EINVAL;
	}
	return 0;
}

static int tp_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	dtrace_event_t ev;
	int64_t cookie;
	int rc;

	(void)data;
	if ((rc = pid_field(pv, "parent_pid", &parent_off)) < 0 ||
	    (rc = pid_field(pv, "child_pid", &child_off)) < 0)
		return rc;
	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	ev.type = DTRACE_EVENT_TRACEPOINT;
	ev.category = TP_CATEGORY;
	ev.name = TP_EVENT;
	ev.kind = TP_KIND;
	cookie = host->sites->event(pv, &ev);
	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, 0, prp);
}

/* argv[0] = the parent's pid, argv[1] = the child's, read from the record
 * in the context. */
static int tp_trampoline(dtrace_provider_t *pv, void *data,
			 dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int argv = offsetof(dtrace_mstate_t, argv);

	(void)pv, (void)data, (void)tr;
	host->bpf->emit(em, DT_LOAD(BPF_W, DT_R1, DTRACE_REG_CTX, parent_off));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv, DT_R1));
	host->bpf->emit(em, DT_LOAD(BPF_W, DT_R1, DTRACE_REG_CTX, child_off));
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv + 8, DT_R1));
	return 0;
}

static const dtrace_provider_ops_t tp_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = TP_PROVIDER,
	.provide = tp_provide,
	.probe_args = tp_probe_args,
	.enable = tp_enable,
	.trampoline = tp_trampoline,
};

DTRACE_PROVIDER(tp_ops, host)
