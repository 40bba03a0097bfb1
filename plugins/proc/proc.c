/* SPDX-License-Identifier: MIT */
/*
 * proc.c: the proc provider: processes and threads being created, running
 * a new program, exiting and being signalled, in every process.
 *
 *	probe		fires in		arguments
 *	exec		the process, before	args[0] the path (string)
 *			execve()/execveat()
 *	exec-success	the new program, as	none
 *			execve() returns
 *	exec-failure	the process, as		args[0] the error number
 *			execve() fails
 *	create		the parent		args[0] the child (psinfo_t *)
 *	lwp-create	the creating thread	args[0] the new thread
 *						(lwpsinfo_t *), args[1] its
 *						process (psinfo_t *)
 *	exit		the last thread of a	args[0] CLD_EXITED (1),
 *			process, as it exits	CLD_KILLED (2) or CLD_DUMPED (3)
 *	lwp-exit	each thread, as it	none
 *			exits
 *	signal-send	the sender		args[0] the target thread
 *						(lwpsinfo_t *), args[1] its
 *						process (psinfo_t *), args[2]
 *						the signal
 *
 * The psinfo_t and lwpsinfo_t arguments are the kernel's struct
 * task_struct * of the thread (arg0 and arg1), translated by the D
 * library psinfo.d (built into dtrace), as the sched provider's are; a
 * program that does not read that library sees the task pointer itself,
 * typed from the kernel's BTF.
 * Each probe is a kernel tracepoint (host->sites->event): the execve
 * system call's, sched:sched_process_exit, and the raw tracepoints whose
 * arguments are the tasks: task_newtask (whose clone flags tell a thread
 * from a process) and signal_generate.
 * Probes that share a tracepoint have kinds of their own, whose
 * trampolines skip the firings that are not theirs.  The exit status
 * comes from the exiting task's exit_code, found through the kernel's BTF.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include <dtrace/provider.h>

#define PROC_PROVIDER	"proc"
#define PROC_MODULE	"vmlinux"
#define CLONE_THREAD_FLAG	0x10000	/* CLONE_THREAD */
#define SYSCALL_ARG0	16	/* a syscalls tracepoint's first argument,
				   or its return value */

static const dtrace_host_t *host;

/* Kinds: one trampoline each. */
enum {
	K_EXEC_VE, K_EXEC_AT, K_EXEC_OK, K_EXEC_FAIL, K_CREATE,
	K_LWP_CREATE, K_EXIT, K_LWP_EXIT, K_SIGNAL,
};

/* A probe, and the tracepoints it is placed on (kind per tracepoint). */
typedef struct proc_site {
	const char *cat, *event;	/* cat NULL: a raw tracepoint */
	int kind;
} proc_site_t;

typedef struct proc_probe {
	const char *name;
	proc_site_t sites[2];	/* the second's event NULL when unused */
	const char *types[3];	/* argument types, NULL-terminated */
	const char *xlate[3];	/* what args[] translates them to, or NULL */
} proc_probe_t;

#define TASK	"struct task_struct *"

static const proc_probe_t probes[] = {
	{ "exec", { { "syscalls", "sys_enter_execve", K_EXEC_VE },
		    { "syscalls", "sys_enter_execveat", K_EXEC_AT } },
	  { "string" } },
	{ "exec-success", { { "syscalls", "sys_exit_execve", K_EXEC_OK },
			    { "syscalls", "sys_exit_execveat", K_EXEC_OK } },
	  { NULL } },
	{ "exec-failure", { { "syscalls", "sys_exit_execve", K_EXEC_FAIL },
			    { "syscalls", "sys_exit_execveat", K_EXEC_FAIL } },
	  { "int" } },
	{ "create", { { NULL, "task_newtask", K_CREATE } }, { TASK },
	  { "psinfo_t *" } },
	{ "lwp-create", { { NULL, "task_newtask", K_LWP_CREATE } },
	  { TASK, TASK }, { "lwpsinfo_t *", "psinfo_t *" } },
	{ "exit", { { "sched", "sched_process_exit", K_EXIT } }, { "int" } },
	{ "lwp-exit", { { "sched", "sched_process_exit", K_LWP_EXIT } },
	  { NULL } },
	{ "signal-send", { { NULL, "signal_generate", K_SIGNAL } },
	  { TASK, TASK, "int" }, { "lwpsinfo_t *", "psinfo_t *" } },
};
#define NPROBES	(sizeof(probes) / sizeof(probes[0]))

/* What the trampolines need, found when a probe is enabled. */
static struct {
	uint32_t exit_group_dead;	/* 0: the kernel's record has none */
	int32_t task_exit_code;		/* in task_struct; -1: unknown */
} off = { .task_exit_code = -1 };

/* exec's path, copied from the process (see emit_exec_path). */
#define PROC_PATH_MAX	256
static dtrace_map_t *path_map;

static int proc_provide(dtrace_provider_t *pv, void *data,
			const dtrace_probedesc_t *pdp)
{
	int n = 0;

	(void)data;
	if (!host->probes->glob_match(pdp->prv, PROC_PROVIDER) ||
	    !host->probes->glob_match(pdp->mod, PROC_MODULE) ||
	    !host->probes->glob_match(pdp->fun, ""))
		return 0;
	for (size_t i = 0; i < NPROBES; i++) {
		const proc_probe_t *p = &probes[i];
		if (!host->probes->glob_match(pdp->prb, p->name) ||
		    host->probes->lookup(pv, PROC_PROVIDER, PROC_MODULE, "",
					 p->name))
			continue;
		dtrace_probe_t *prp =
			host->probes->insert(pv, PROC_PROVIDER, PROC_MODULE, "",
					     p->name, (void *)p);
		if (prp == NULL)
			return -errno;
		/* ustack() and uregs[] are the current thread's; a task
		 * argument points into the kernel */
		host->probes->attr(pv, prp, DTRACE_PROBE_IN_KERNEL |
				   (p->xlate[0] ? DTRACE_PROBE_KERNEL : 0));
		n++;
	}
	return n;
}

static int proc_probe_args(dtrace_provider_t *pv, void *data,
			   const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	const proc_probe_t *p = host->probes->priv(prp);
	int n = 0;

	(void)pv, (void)data;
	for (; n < 3 && p->types[n] != NULL; n++)
		args[n] = (dtrace_argdesc_t){ p->types[n], p->xlate[n], n };
	return n;
}

/* Whether the record of cat:event has a field named field (without the
 * warning host->sites->tp_field() gives for a missing one). */
static int tp_has_field(const char *cat, const char *event, const char *field)
{
	char path[256], line[512], want[64];
	int found = 0;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/format",
		 cat, event);
	snprintf(want, sizeof(want), " %s;", field);
	FILE *fp = fopen(path, "r");
	while (fp != NULL && !found && fgets(line, sizeof(line), fp) != NULL)
		found = strstr(line, want) != NULL;
	if (fp != NULL)
		fclose(fp);
	return found;
}

/* Find the offsets a kind's trampoline reads. */
static int proc_offsets(dtrace_provider_t *pv, int kind)
{
	uint32_t size;

	switch (kind) {
	case K_EXIT: case K_LWP_EXIT:
		if (tp_has_field("sched", "sched_process_exit", "group_dead") &&
		    host->sites->tp_field(pv, "sched", "sched_process_exit",
					  "group_dead", &off.exit_group_dead,
					  &size) < 0)
			return -ENOENT;
		if (off.task_exit_code < 0)
			off.task_exit_code = host->bpf->kernel_member_offset(
				pv, "task_struct", "exit_code");
		return 0;
	case K_EXEC_VE: case K_EXEC_AT:
		path_map = host->bpf->map_create(pv, "path",
						 BPF_MAP_TYPE_PERCPU_ARRAY, 4,
						 PROC_PATH_MAX, 1);
		return path_map ? 0 : -ENOMEM;
	}
	return 0;
}

static int proc_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	const proc_probe_t *p = host->probes->priv(prp);
	int rc;

	(void)data;
	for (int i = 0; i < 2 && p->sites[i].event != NULL; i++) {
		const proc_site_t *s = &p->sites[i];
		if ((rc = proc_offsets(pv, s->kind)) < 0)
			return rc;
		dtrace_event_t ev = {
			.size = sizeof(ev),
			.type = s->cat ? DTRACE_EVENT_TRACEPOINT
				       : DTRACE_EVENT_RAW_TRACEPOINT,
			.category = s->cat, .name = s->event, .kind = s->kind,
		};
		int64_t cookie = host->sites->event(pv, &ev);
		if (cookie < 0)
			return (int)cookie;
		if ((rc = host->sites->overlay(pv, cookie, 0, prp)) < 0)
			return rc;
	}
	return 0;
}

#define ARGV(i)	((int16_t)(offsetof(dtrace_mstate_t, argv) + 8 * (i)))

/* exec: a D string is in the kernel's memory, so the path is copied from
 * the process into this CPU's value of the map "path", and arg0 points
 * there.  The program's stack slot at fp-8 stages the map key. */
static void emit_exec_path(dtrace_emitter_t *em, int16_t field, int skip)
{
	host->bpf->emit(em, DT_STORE_IMM(BPF_W, DT_FP, -8, 0));
	host->bpf->load_map(em, DT_R1, path_map);
	host->bpf->emit(em, DT_MOV64_REG(DT_R2, DT_FP));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R2, -8));
	host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	host->bpf->jump(em, BPF_JEQ, DT_R0, 0, skip);
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(0), DT_R0));
	host->bpf->emit(em, DT_MOV64_REG(DT_R1, DT_R0));
	host->bpf->emit(em, DT_MOV64_IMM(DT_R2, PROC_PATH_MAX));
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R3, DTRACE_REG_CTX, field));
	host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_probe_read_user_str));
}

/* exec-success (fail false) or exec-failure: skip the other outcome; a
 * failure's arg0 is the error number. */
static void emit_exec_result(dtrace_emitter_t *em, bool fail, int skip)
{
	host->bpf->emit(em,
			DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX, SYSCALL_ARG0));
	if (!fail) {
		host->bpf->jump(em, BPF_JNE, DT_R1, 0, skip);
		return;
	}
	host->bpf->jump(em, BPF_JSGE, DT_R1, 0, skip);
	host->bpf->emit(em, DT_NEG64(DT_R1));
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(0), DT_R1));
}

/* arg0 = arg1 = the task the raw tracepoint's argument n points to: the
 * thread, and its process (psinfo_t's translator reads the process's
 * values from any of its threads). */
static void emit_task_args(dtrace_emitter_t *em, int n)
{
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R3, DTRACE_REG_CTX,
			(int16_t)DTRACE_CTX_TARG(n)));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(0), DT_R3));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(1), DT_R3));
}

/* create or lwp-create, on task_newtask (task, clone_flags): the clone
 * flags say which; the new task in arg0 and arg1. */
static void emit_create(dtrace_emitter_t *em, bool lwp, int skip)
{
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			(int16_t)DTRACE_CTX_TARG(1)));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R1, CLONE_THREAD_FLAG));
	host->bpf->jump(em, lwp ? BPF_JEQ : BPF_JNE, DT_R1, 0, skip);
	emit_task_args(em, 0);
}

/* signal-send, on signal_generate (sig, info, task, group, result): the
 * target task in arg0 and arg1, the signal in arg2. */
static void emit_signal(dtrace_emitter_t *em)
{
	emit_task_args(em, 2);
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			(int16_t)DTRACE_CTX_TARG(0)));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_LSH, DT_R1, 32));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ARSH, DT_R1, 32));
	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(2), DT_R1));
}

/* exit: only when the last thread of the process exits (group_dead, or
 * on kernels whose record lacks it, the main thread); arg0 the reason
 * from the task's exit_code: killed by a signal (CLD_KILLED), with a core
 * dump (CLD_DUMPED), or an exit (CLD_EXITED). */
static void emit_exit(dtrace_emitter_t *em, int skip)
{
	int dumped = host->bpf->label_new(em), done = host->bpf->label_new(em);

	if (off.exit_group_dead != 0) {
		host->bpf->emit(em, DT_LOAD(BPF_B, DT_R1, DTRACE_REG_CTX,
				(int16_t)off.exit_group_dead));
		host->bpf->jump(em, BPF_JEQ, DT_R1, 0, skip);
	} else {
		host->bpf->emit(em,
				DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
		host->bpf->emit(em, DT_MOV64_REG(DT_R1, DT_R0));
		host->bpf->emit(em, DT_ALU64_IMM(BPF_RSH, DT_R1, 32));
		host->bpf->emit(em, DT_MOV32_REG(DT_R0, DT_R0));
		host->bpf->emit(em, DT_ALU64_REG(BPF_SUB, DT_R0, DT_R1));
		host->bpf->jump(em, BPF_JNE, DT_R0, 0, skip);
	}
	host->bpf->emit(em,
			DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, ARGV(0), 0));
	if (off.task_exit_code < 0)
		return;
	host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_get_current_task));
	host->bpf->emit(em, DT_MOV64_REG(DT_R3, DT_R0));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R3, off.task_exit_code));
	host->bpf->emit(em, DT_MOV64_REG(DT_R1, DTRACE_REG_MSTATE));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R1, ARGV(0)));
	host->bpf->emit(em, DT_MOV64_IMM(DT_R2, 4));
	host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
	host->bpf->emit(em, DT_LOAD(BPF_W, DT_R1, DTRACE_REG_MSTATE, ARGV(0)));
	host->bpf->emit(em, DT_MOV64_IMM(DT_R2, 1));		/* CLD_EXITED */
	host->bpf->emit(em, DT_MOV64_REG(DT_R3, DT_R1));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R3, 0x7f));
	host->bpf->jump(em, BPF_JEQ, DT_R3, 0, done);
	host->bpf->emit(em, DT_MOV64_IMM(DT_R2, 2));		/* CLD_KILLED */
	host->bpf->emit(em, DT_ALU64_IMM(BPF_AND, DT_R1, 0x80));
	host->bpf->jump(em, BPF_JNE, DT_R1, 0, dumped);
	host->bpf->jump(em, BPF_JA, 0, 0, done);
	host->bpf->label_place(em, dumped);
	host->bpf->emit(em, DT_MOV64_IMM(DT_R2, 3));		/* CLD_DUMPED */
	host->bpf->label_place(em, done);
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, ARGV(0), DT_R2));
}

static int proc_trampoline(dtrace_provider_t *pv, void *data,
			   dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int kind = tr->kind, skip = tr->skip;
	(void)pv, (void)data;
	switch (kind) {
	case K_EXEC_VE:
		emit_exec_path(em, SYSCALL_ARG0, skip);
		break;
	case K_EXEC_AT:		/* execveat(dirfd, filename, ...) */
		emit_exec_path(em, SYSCALL_ARG0 + 8, skip);
		break;
	case K_EXEC_OK: case K_EXEC_FAIL:
		emit_exec_result(em, kind == K_EXEC_FAIL, skip);
		break;
	case K_CREATE: case K_LWP_CREATE:
		emit_create(em, kind == K_LWP_CREATE, skip);
		break;
	case K_EXIT:
		emit_exit(em, skip);
		break;
	case K_SIGNAL:
		emit_signal(em);
		break;
	}
	return 0;
}

static const dtrace_provider_ops_t proc_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = PROC_PROVIDER,
	.provide = proc_provide,
	.probe_args = proc_probe_args,
	.enable = proc_enable,
	.trampoline = proc_trampoline,
};

DTRACE_PROVIDER(proc_ops, host)
