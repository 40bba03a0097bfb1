/* SPDX-License-Identifier: MIT */
/*
 * sched.c: the sched provider: threads going on and off a CPU, blocking,
 * being woken and made runnable, in every process.
 *
 *	probe		fires in			arguments
 *	on-cpu		the thread that a CPU switched	none
 *			to, as it resumes
 *	off-cpu		the thread leaving the CPU,	args[0], args[1] the
 *			before the switch		thread about to run
 *	sleep		the thread about to block,	none
 *			before the switch
 *	dequeue		the thread about to block	args[0], args[1] that
 *			(it left its run queue)		thread
 *	wakeup		the thread that wakes another	args[0], args[1] the
 *							thread woken
 *	enqueue		wherever the kernel makes a	args[0], args[1] the
 *			woken or new thread runnable	thread
 *
 * arg0 and arg1 are the thread's struct task_struct *.  args[0] and
 * args[1] are it translated to lwpsinfo_t * and psinfo_t * (of its
 * process), as in DTrace, by the translators of the
 * D library psinfo.d (built into dtrace); a program that does not read
 * that library (it names none of its words) sees the task pointer
 * itself, typed from the kernel's BTF.  DTrace's cpuinfo_t * of
 * enqueue's and dequeue's args[2] is not passed.
 *
 * Each probe is a raw tracepoint of the scheduler, whose arguments are
 * the kernel's own (task pointers, the switch's preempt flag and the
 * previous thread's state):
 *
 *   sched_switch (preempt, prev, next, prev_state): runs in prev's
 *	context, before the switch: off-cpu, and when prev blocks (not
 *	preempted, prev_state has TASK_INTERRUPTIBLE or
 *	TASK_UNINTERRUPTIBLE) sleep and dequeue;
 *   sched_exit_tp (is_switch): the end of __schedule(), in the thread
 *	that runs from there on; is_switch is that thread's own, true when
 *	it had been switched out: on-cpu.  A thread's first run starts
 *	elsewhere (ret_from_fork), so it has no on-cpu;
 *   sched_waking (p): in try_to_wake_up(), in the waker's context:
 *	wakeup;
 *   sched_wakeup (p), sched_wakeup_new (p): where the woken or new
 *	thread is made runnable (the waker, or the target CPU's interrupt
 *	for a remote wakeup): enqueue.
 *
 * Probes that share a tracepoint have kinds of their own (a program
 * each, on that tracepoint), whose trampolines skip the firings that are
 * not theirs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

#include <dtrace/provider.h>

#define SCHED_PROVIDER	"sched"
#define SCHED_MODULE	"vmlinux"
#define TASK_BLOCKS	0x3	/* TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE */

static const dtrace_host_t *host;

/* Kinds: one trampoline each. */
enum {
	K_ON_CPU, K_OFF_CPU, K_SLEEP, K_DEQUEUE, K_WAKEUP, K_ENQUEUE,
	K_ENQUEUE_NEW,
};

/* The raw tracepoint a kind's program is attached to. */
typedef struct sched_site {
	const char *tracepoint;
	int kind;
} sched_site_t;

typedef struct sched_probe {
	const char *name;
	sched_site_t sites[2];	/* the second's tracepoint NULL when unused */
	int nargs;		/* 0, or 2: the thread and its process */
} sched_probe_t;

static const sched_probe_t probes[] = {
	{ "on-cpu", { { "sched_exit_tp", K_ON_CPU } }, 0 },
	{ "off-cpu", { { "sched_switch", K_OFF_CPU } }, 2 },
	{ "sleep", { { "sched_switch", K_SLEEP } }, 0 },
	{ "dequeue", { { "sched_switch", K_DEQUEUE } }, 2 },
	{ "wakeup", { { "sched_waking", K_WAKEUP } }, 2 },
	{ "enqueue", { { "sched_wakeup", K_ENQUEUE },
		       { "sched_wakeup_new", K_ENQUEUE_NEW } }, 2 },
};
#define NPROBES	(sizeof(probes) / sizeof(probes[0]))

static int sched_provide(dtrace_provider_t *pv, void *data,
			 const dtrace_probedesc_t *pdp)
{
	int n = 0;

	(void)data;
	if (!host->probes->glob_match(pdp->prv, SCHED_PROVIDER) ||
	    !host->probes->glob_match(pdp->mod, SCHED_MODULE) ||
	    !host->probes->glob_match(pdp->fun, ""))
		return 0;
	for (size_t i = 0; i < NPROBES; i++) {
		const sched_probe_t *p = &probes[i];
		if (!host->probes->glob_match(pdp->prb, p->name) ||
		    host->probes->lookup(pv, SCHED_PROVIDER, SCHED_MODULE, "",
					 p->name))
			continue;
		dtrace_probe_t *prp =
			host->probes->insert(pv, SCHED_PROVIDER, SCHED_MODULE,
					     "", p->name, (void *)p);
		if (prp == NULL)
			return -errno;
		/* args[] point into the kernel; ustack() and uregs[] are the
		 * current thread's */
		host->probes->attr(pv, prp, DTRACE_PROBE_KERNEL |
				   DTRACE_PROBE_IN_KERNEL);
		n++;
	}
	return n;
}

static int sched_probe_args(dtrace_provider_t *pv, void *data,
			    const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	const sched_probe_t *p = host->probes->priv(prp);
	static const char *const xlated[] = { "lwpsinfo_t *", "psinfo_t *" };

	(void)pv, (void)data;
	for (int i = 0; i < p->nargs; i++)
		args[i] = (dtrace_argdesc_t){ "struct task_struct *",
					      xlated[i], i };
	return p->nargs;
}

/* Whether the kernel has the raw tracepoint name, as far as its BTF tells
 * (each has a typedef btf_trace_NAME there); true without BTF, where the
 * attachment says it instead. */
static bool kernel_has_tracepoint(dtrace_provider_t *pv, const char *name)
{
	const struct btf *btf = host->bpf->kernel_btf(pv);
	char type[128];

	if (btf == NULL)
		return true;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	return btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) > 0;
}

static int sched_enable(dtrace_provider_t *pv, void *data,
			dtrace_probe_t *prp)
{
	const sched_probe_t *p = host->probes->priv(prp);
	int rc;

	(void)data;
	if (p->sites[0].kind == K_ON_CPU &&
	    !kernel_has_tracepoint(pv, p->sites[0].tracepoint)) {
		host->report->error(pv, "sched:::on-cpu needs the kernel's "
				    "tracepoint %s (Linux 6.16 and later), "
				    "which this kernel lacks",
				    p->sites[0].tracepoint);
		return -ENOTSUP;
	}
	for (int i = 0; i < 2 && p->sites[i].tracepoint != NULL; i++) {
		dtrace_event_t ev = {
			.size = sizeof(ev),
			.type = DTRACE_EVENT_RAW_TRACEPOINT,
			.name = p->sites[i].tracepoint,
			.kind = p->sites[i].kind,
		};
		int64_t cookie = host->sites->event(pv, &ev);
		if (cookie < 0)
			return (int)cookie;
		if ((rc = host->sites->overlay(pv, cookie, 0, prp)) < 0)
			return rc;
	}
	return 0;
}

#define ARGV(i)	((int16_t)DTRACE_MSTATE_ARG(i))

/* arg0 = arg1 = the task the tracepoint's argument n points to: the
 * thread, and its process (psinfo_t's translator reads the process's
 * values from any of its threads). */
static void emit_task_args(dtrace_emitter_t *em, int n)
{
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R3, DTRACE_REG_CTX,
			(int16_t)DTRACE_CTX_TARG(n)));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(0), DT_R3));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(1), DT_R3));
}

/* sched_switch: skip a switch in which prev does not block (it was
 * preempted, or is still runnable). */
static void emit_skip_unless_blocking(dtrace_emitter_t *em, int skip)
{
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			(int16_t)DTRACE_CTX_TARG(0)));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R1, 0xff));
	host->bpf->jump(em, BPF_JNE, DT_R1, 0, skip);
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			(int16_t)DTRACE_CTX_TARG(3)));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R1, TASK_BLOCKS));
	host->bpf->jump(em, BPF_JEQ, DT_R1, 0, skip);
}

static int sched_trampoline(dtrace_provider_t *pv, void *data,
			    dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	(void)pv, (void)data;
	switch (tr->kind) {
	case K_ON_CPU:		/* is_switch, a bool: its low byte */
		host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
				(int16_t)DTRACE_CTX_TARG(0)));
		host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R1, 0xff));
		host->bpf->jump(em, BPF_JEQ, DT_R1, 0, tr->skip);
		break;
	case K_OFF_CPU:		/* next */
		emit_task_args(em, 2);
		break;
	case K_SLEEP:
		emit_skip_unless_blocking(em, tr->skip);
		break;
	case K_DEQUEUE:		/* prev */
		emit_skip_unless_blocking(em, tr->skip);
		emit_task_args(em, 1);
		break;
	case K_WAKEUP: case K_ENQUEUE: case K_ENQUEUE_NEW:	/* p */
		emit_task_args(em, 0);
		break;
	}
	return 0;
}

static const dtrace_provider_ops_t sched_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = SCHED_PROVIDER,
	.provide = sched_provide,
	.probe_args = sched_probe_args,
	.enable = sched_enable,
	.trampoline = sched_trampoline,
};

DTRACE_PROVIDER(sched_ops, host)
