/* SPDX-License-Identifier: MIT */
/*
 * syscall.c: the syscall provider: the entry and return of every system
 * call, in every process.
 *
 *	syscall:vmlinux:read:entry	arg0..arg5 the call's arguments,
 *					args[] typed as the kernel declares them
 *	syscall:vmlinux:read:return	arg0 and arg1 the return value; errno
 *					set when the call failed
 *
 * Two ways, chosen per direction (entry, return) for the session:
 *
 *   per call	the kernel's per-call tracepoints (syscalls:sys_enter_read,
 *		syscalls:sys_exit_read): nothing for the calls not traced,
 *		but each costs an attachment, and the kernel detaches a
 *		tracepoint's program under a global lock (about 22 ms each:
 *		8 s for the 360 of syscall:::entry, which the engine leaves
 *		to a process of its own once the output is final:
 *		dt_bpf_detach.c).  The record holds the
 *		call's number, then its arguments, 8 bytes each, or its
 *		return value; the trampoline of a kind (entry with N
 *		arguments, or return) copies them into arg0..argN.  A program
 *		reads no further than the record of every tracepoint it is
 *		attached to, which the kernel checks at attach time: hence a
 *		kind per argument count.
 *   raw	raw_syscalls:sys_enter / sys_exit, one raw tracepoint each
 *		whatever the calls traced: cheaper per traced firing
 *		(bench/syscall.sh), but run for every call of the machine.
 *		The trampoline reads the arguments from the saved registers
 *		and sets the overlay key to (SC_RAW_KEY + the call's number,
 *		cookie), under which each probe is overlaid: a call not traced
 *		finds no overlay and ends there.
 *
 * Raw when a description of the session matches more than SC_WIDE calls
 * in that direction (syscall:::entry), per call otherwise; -x
 * syscall.mode=raw or =percall forces one.  A call whose number the
 * plugin does not know (sc_nr.h) is always traced per call.
 *
 * Listing reads the names of tracefs's syscalls directory only; the
 * argument types come from a call's format file when a clause or -lv
 * asks for them.  The provider sees the engine only through
 * <dtrace/provider.h>.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dtrace/provider.h>

#define SC_PROVIDER	"syscall"
#define SC_MODULE	"vmlinux"
#define SC_CATEGORY	"syscalls"
#define SC_NARGS	6
#define SC_KIND_RETURN	(SC_NARGS + 1)	/* kinds 0..6: entry with N args */
#define SC_ARG0_OFF	16	/* the first argument (or the return value)
				   in a syscalls tracepoint's record */
#define SC_ERRNO_MAX	4095	/* -4095..-1 returned: a failure */
#define SC_KIND_RAW_ENTRY  (SC_KIND_RETURN + 1)	/* raw_syscalls:sys_enter */
#define SC_KIND_RAW_RETURN (SC_KIND_RETURN + 2)	/* raw_syscalls:sys_exit */
#define SC_WIDE		16	/* calls a description matches in one
				   direction past which it is traced raw */
#define SC_RAW_KEY	0x7fff0000 /* overlay key "pid" of call 0 traced
				   raw: above any process id */

/* How a direction is traced (see above). */
typedef enum sc_mode { SC_AUTO, SC_PERCALL, SC_RAW } sc_mode_t;

typedef struct sc_session {
	sc_mode_t mode;		/* -x syscall.mode, else SC_AUTO */
	int wide[2];		/* [is_return]: a description matched more
				   than SC_WIDE calls */
} sc_session_t;

/* The x86-64 numbers of the calls, by name (sc_nr.h, generated). */
typedef struct sc_nr {
	const char *name;
	int nr;
} sc_nr_t;

#define SC_NR(name, nr)	{ name, nr },
static const sc_nr_t sc_nrs[] = {
#include "sc_nr.h"
};
#undef SC_NR

static int sc_nr_cmp(const void *key, const void *ent)
{
	return strcmp(key, ((const sc_nr_t *)ent)->name);
}

/* The number of the call named call, or -1. */
static int sc_nr_of(const char *call)
{
	const sc_nr_t *e = bsearch(call, sc_nrs, sizeof(sc_nrs) / sizeof(*sc_nrs),
				   sizeof(*sc_nrs), sc_nr_cmp);
	return e != NULL ? e->nr : -1;
}

static const dtrace_host_t *host;

/* A probe's private data: its call and, once asked, its argument types. */
typedef struct sc_probe {
	int is_return;
	int nargs;		/* -1 until the format was read */
	char *types[SC_NARGS];
	char name[];		/* the call's name ("read") */
} sc_probe_t;

/* The tracefs directory of the syscalls events, or NULL. */
static const char *sc_events_dir(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events/" SC_CATEGORY,
		"/sys/kernel/debug/tracing/events/" SC_CATEGORY,
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		DIR *d = opendir(dirs[i]);
		if (d != NULL) {
			closedir(d);
			return dirs[i];
		}
	}
	return NULL;
}

static int sc_insert(dtrace_provider_t *pv, const char *call, int is_return)
{
	const char *prb = is_return ? "return" : "entry";

	if (host->probes->lookup(pv, SC_PROVIDER, SC_MODULE, call, prb))
		return 0;
	sc_probe_t *p = calloc(1, sizeof(*p) + strlen(call) + 1);
	if (p == NULL)
		return -ENOMEM;
	p->is_return = is_return;
	p->nargs = -1;
	strcpy(p->name, call);
	dtrace_probe_t *prp = host->probes->insert(pv, SC_PROVIDER, SC_MODULE,
						   call, prb, p);
	if (prp == NULL) {
		int rc = -errno;
		free(p);
		return rc;
	}
	/* ustack() and uregs[] are the calling thread's */
	host->probes->attr(pv, prp,
			   DTRACE_PROBE_IN_KERNEL | DTRACE_PROBE_SYSCALL);
	return 1;
}

/* Probes for each call that has both tracepoints and matches pdp; a
 * description of more than SC_WIDE calls in a direction makes it raw. */
static int sc_provide(dtrace_provider_t *pv, void *data,
		      const dtrace_probedesc_t *pdp)
{
	sc_session_t *s = data;
	const char *dir = sc_events_dir();
	struct dirent *de;
	int n = 0, rc = 0, ncalls = 0;

	if (!host->probes->glob_match(pdp->prv, SC_PROVIDER) ||
	    !host->probes->glob_match(pdp->mod, SC_MODULE))
		return 0;
	int entry = host->probes->glob_match(pdp->prb, "entry");
	int ret = host->probes->glob_match(pdp->prb, "return");
	if ((!entry && !ret) || dir == NULL)
		return 0;
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	while (rc >= 0 && (de = readdir(d)) != NULL) {
		const char *call = de->d_name + strlen("sys_enter_");
		if (strncmp(de->d_name, "sys_enter_", 10) != 0 ||
		    !host->probes->glob_match(pdp->fun, call))
			continue;
		if (entry && (rc = sc_insert(pv, call, 0)) > 0)
			n += rc;
		if (rc >= 0 && ret && (rc = sc_insert(pv, call, 1)) > 0)
			n += rc;
		ncalls++;
	}
	closedir(d);
	if (ncalls > SC_WIDE) {
		s->wide[0] |= entry;
		s->wide[1] |= ret;
	}
	if (rc < 0) {
		host->report->error(pv,
			"syscall: cannot create the probes of %s: %s",
			de ? de->d_name : "?", strerror(-rc));
		return rc;
	}
	return n;
}

/*
 * The type of a field declaration of a format file ("const char * filename"
 * gives "const char *"), or NULL when the line declares no argument.
 * Arguments are 8 bytes each, one after the other from SC_ARG0_OFF.
 */
static char *sc_field_type(const char *line, int index)
{
	const char *decl = strstr(line, "field:");
	unsigned off, size;

	if (decl == NULL)
		return NULL;
	decl += strlen("field:");
	const char *semi = strchr(decl, ';');
	const char *o = semi ? strstr(semi, "offset:") : NULL;
	const char *z = semi ? strstr(semi, "size:") : NULL;
	if (o == NULL || z == NULL || sscanf(o, "offset:%u", &off) != 1 ||
	    sscanf(z, "size:%u", &size) != 1 ||
	    off != SC_ARG0_OFF + 8u * (unsigned)index || size != 8)
		return NULL;
	const char *name = semi;
	while (name > decl && name[-1] != ' ' && name[-1] != '*')
		name--;
	while (name > decl && name[-1] == ' ')
		name--;
	size_t len = (size_t)(name - decl);
	char *t = malloc(len + 1);
	if (t != NULL) {
		memcpy(t, decl, len);
		t[len] = '\0';
	}
	return t;
}

/* Read the argument types of p's call from its entry format file. */
static void sc_read_args(sc_probe_t *p)
{
	char path[512], line[512];
	const char *dir = sc_events_dir();
	int seen_nr = 0;

	p->nargs = 0;
	if (dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/sys_enter_%s/format", dir, p->name);
	FILE *fp = fopen(path, "r");
	if (fp == NULL)
		return;
	while (p->nargs < SC_NARGS && fgets(line, sizeof(line), fp) != NULL) {
		if (!seen_nr) {
			seen_nr = strstr(line, " __syscall_nr;") != NULL;
			continue;
		}
		char *t = sc_field_type(line, p->nargs);
		if (t == NULL)
			break;
		p->types[p->nargs++] = t;
	}
	fclose(fp);
}

static int sc_probe_args(dtrace_provider_t *pv, void *data,
			 const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	sc_probe_t *p = host->probes->priv(prp);

	(void)pv, (void)data;
	if (p->is_return) {
		for (int i = 0; i < 2; i++)
			args[i] = (dtrace_argdesc_t){ "long", NULL, i };
		return 2;
	}
	if (p->nargs < 0)
		sc_read_args(p);
	for (int i = 0; i < p->nargs; i++)
		args[i] = (dtrace_argdesc_t){ p->types[i], NULL, i };
	return p->nargs;
}

/* On raw_syscalls: the probe overlaid on its call's number. */
static int sc_enable_raw(dtrace_provider_t *pv, dtrace_probe_t *prp,
			 const sc_probe_t *p, int nr)
{
	dtrace_event_t ev = {
		.size = sizeof(ev), .type = DTRACE_EVENT_RAW_TRACEPOINT,
		.name = p->is_return ? "sys_exit" : "sys_enter",
		.kind = p->is_return ? SC_KIND_RAW_RETURN : SC_KIND_RAW_ENTRY,
	};
	int64_t cookie = host->sites->event(pv, &ev);
	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, SC_RAW_KEY + nr, prp);
}

static int sc_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	sc_session_t *s = data;
	sc_probe_t *p = host->probes->priv(prp);
	char event[256];

	if (!p->is_return && p->nargs < 0)
		sc_read_args(p);
	int nr = sc_nr_of(p->name);
	if (nr >= 0 && (s->mode == SC_RAW ||
			(s->mode == SC_AUTO && s->wide[p->is_return])))
		return sc_enable_raw(pv, prp, p, nr);
	snprintf(event, sizeof(event), "sys_%s_%s",
		 p->is_return ? "exit" : "enter", p->name);
	dtrace_event_t ev = {
		.size = sizeof(ev), .type = DTRACE_EVENT_TRACEPOINT,
		.category = SC_CATEGORY, .name = event,
		.kind = p->is_return ? SC_KIND_RETURN : p->nargs,
	};
	int64_t cookie = host->sites->event(pv, &ev);
	if (cookie < 0)
		return (int)cookie;
	return host->sites->overlay(pv, cookie, 0, prp);
}

#define SC_ARGV(i)	((int)offsetof(dtrace_mstate_t, argv) + 8 * (i))

/* The value returned, in R1: argv[0] = argv[1] = it; errnum = -value
 * when it is an error number (-4095..-1), as the C library reads it. */
static void sc_emit_return(dtrace_emitter_t *em)
{
	const int argv = SC_ARGV(0);
	int ok = host->bpf->label_new(em);

	host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv, DT_R1));
	host->bpf->emit(em,
			DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv + 8, DT_R1));
	host->bpf->jump(em, BPF_JSGE, DT_R1, 0, ok);
	host->bpf->jump(em, BPF_JSLT, DT_R1, -SC_ERRNO_MAX, ok);
	host->bpf->emit(em, DT_NEG64(DT_R1));
	host->bpf->emit(em, DT_STORE(BPF_W, DTRACE_REG_MSTATE,
			offsetof(dtrace_mstate_t, errnum), DT_R1));
	host->bpf->label_place(em, ok);
}

/* argv[first..] = len bytes at the saved registers (raw_syscalls' first
 * argument) + off; left 0 when they cannot be read. */
static void sc_emit_read_regs(dtrace_emitter_t *em, int first, int off,
			      int len)
{
	host->bpf->emit(em, DT_MOV64_REG(DT_R1, DTRACE_REG_MSTATE));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R1, SC_ARGV(first)));
	host->bpf->emit(em, DT_MOV64_IMM(DT_R2, len));
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R3, DTRACE_REG_CTX,
			DTRACE_CTX_TARG(0)));
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R3, off));
	host->bpf->emit(em, DT_CALL_HELPER(BPF_FUNC_probe_read_kernel));
}

/* R1 += SC_RAW_KEY, the overlay key's pid: the call's own probes. */
static void sc_emit_raw_key(dtrace_emitter_t *em)
{
	host->bpf->emit(em, DT_ALU64_IMM(BPF_ADD, DT_R1, SC_RAW_KEY));
	host->bpf->emit(em, DT_STORE(BPF_W, DTRACE_REG_MSTATE,
			offsetof(dtrace_mstate_t, key.pid), DT_R1));
}

/*
 * raw_syscalls:sys_enter(regs, nr): the key from nr; the registers r10
 * to rdi read at once into argv[0..7], then the call's arguments (rdi,
 * rsi, rdx, r10, r8, r9) put in order and argv[6..7] cleared.
 */
static void sc_emit_raw_entry(dtrace_emitter_t *em)
{
	static const int from[6] = {
		DTRACE_PT_RDI, DTRACE_PT_RSI, DTRACE_PT_RDX,
		DTRACE_PT_R10, DTRACE_PT_R8, DTRACE_PT_R9,
	};
	static const int regs[6] = { DT_R1, DT_R2, DT_R3, DT_R4, DT_R5, DT_R0 };

	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			DTRACE_CTX_TARG(1)));
	sc_emit_raw_key(em);
	sc_emit_read_regs(em, 0, DTRACE_CTX_REG(R10),
			  DTRACE_CTX_REG(ORIG_RAX) - DTRACE_CTX_REG(R10));
	for (int i = 0; i < 6; i++)
		host->bpf->emit(em, DT_LOAD(BPF_DW, regs[i], DTRACE_REG_MSTATE,
				SC_ARGV(from[i] - DTRACE_PT_R10)));
	for (int i = 0; i < 6; i++)
		host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE,
					     SC_ARGV(i), regs[i]));
	host->bpf->emit(em,
			DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, SC_ARGV(6), 0));
	host->bpf->emit(em,
			DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, SC_ARGV(7), 0));
}

/* raw_syscalls:sys_exit(regs, ret): the key from the saved orig_ax (read
 * through argv[2]), then the value returned. */
static void sc_emit_raw_return(dtrace_emitter_t *em)
{
	sc_emit_read_regs(em, 2, DTRACE_CTX_REG(ORIG_RAX), 8);
	host->bpf->emit(em,
			DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_MSTATE, SC_ARGV(2)));
	host->bpf->emit(em,
			DT_STORE_IMM(BPF_DW, DTRACE_REG_MSTATE, SC_ARGV(2), 0));
	sc_emit_raw_key(em);
	host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
			DTRACE_CTX_TARG(1)));
	sc_emit_return(em);
}

/*
 * Per call, entry with N arguments: argv[i] = record[SC_ARG0_OFF + 8 i],
 * i < N; return: the value returned (sc_emit_return).  Raw: above.
 */
static int sc_trampoline(dtrace_provider_t *pv, void *data,
			 dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	const int kind = tr->kind;
	(void)pv, (void)data;
	if (kind == SC_KIND_RAW_ENTRY) {
		sc_emit_raw_entry(em);
	} else if (kind == SC_KIND_RAW_RETURN) {
		sc_emit_raw_return(em);
	} else if (kind == SC_KIND_RETURN) {
		host->bpf->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
				SC_ARG0_OFF));
		sc_emit_return(em);
	} else {
		for (int i = 0; i < kind; i++) {
			host->bpf->emit(em,
					DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
						SC_ARG0_OFF + 8 * i));
			host->bpf->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE,
					SC_ARGV(i), DT_R1));
		}
	}
	return 0;
}

static const dtrace_option_t sc_options[] = {
	{ "mode", "how system calls are traced: raw (raw_syscalls, one "
		  "event for every call) or percall (a tracepoint per call); "
		  "by default raw for a description of more than 16 calls" },
	{ NULL, NULL },
};

static int sc_set_option(dtrace_provider_t *pv, void *data, const char *name,
			 const char *value)
{
	sc_session_t *s = data;

	(void)name;
	if (value != NULL && strcmp(value, "raw") == 0)
		s->mode = SC_RAW;
	else if (value != NULL && strcmp(value, "percall") == 0)
		s->mode = SC_PERCALL;
	else {
		host->report->error(pv,
			"syscall: -x syscall.mode=%s: expected raw or "
			"percall",
			value ? value : "");
		return -EINVAL;
	}
	return 0;
}

static void *sc_attach(dtrace_provider_t *pv)
{
	(void)pv;
	return calloc(1, sizeof(sc_session_t));
}

static void sc_detach(dtrace_provider_t *pv, void *data)
{
	(void)pv;
	free(data);
}

static void sc_free_priv(void *data, void *priv)
{
	sc_probe_t *p = priv;

	(void)data;
	for (int i = 0; i < p->nargs; i++)
		free(p->types[i]);
	free(p);
}

static const dtrace_provider_ops_t sc_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = SC_PROVIDER,
	.attach_session = sc_attach,
	.provide = sc_provide,
	.probe_args = sc_probe_args,
	.enable = sc_enable,
	.trampoline = sc_trampoline,
	.free_priv = sc_free_priv,
	.detach_session = sc_detach,
	.options = sc_options,
	.set_option = sc_set_option,
};

DTRACE_PROVIDER(sc_ops, host)
