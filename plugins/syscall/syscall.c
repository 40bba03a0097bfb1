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
 * Each probe is the kernel's per-call tracepoint (syscalls:sys_enter_read,
 * syscalls:sys_exit_read), not raw_syscalls:sys_enter.  Per traced firing
 * the raw tracepoint is cheaper (bench/syscall.sh: an empty program costs
 * about 35 ns there against 95 ns on the per-call tracepoint), but it runs
 * on every system call of the machine, traced or not, and would still
 * have to read the arguments from the saved registers and choose the
 * probe by the call's number; a per-call tracepoint costs nothing to the
 * calls not traced.  The tracepoint's record holds the call's number, then its
 * arguments, 8 bytes each, or its return value; the trampoline of a kind
 * (entry with N arguments, or return) copies them into arg0..argN.  A
 * program reads no further than the record of every tracepoint it is
 * attached to, which the kernel checks at attach time: hence a kind per
 * argument count.
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

	if (host->probe_lookup(pv, SC_PROVIDER, SC_MODULE, call, prb))
		return 0;
	sc_probe_t *p = calloc(1, sizeof(*p) + strlen(call) + 1);
	if (p == NULL)
		return -ENOMEM;
	p->is_return = is_return;
	p->nargs = -1;
	strcpy(p->name, call);
	dtrace_probe_t *prp = host->probe_insert(pv, SC_PROVIDER, SC_MODULE,
						 call, prb, p);
	if (prp == NULL) {
		int rc = -errno;
		free(p);
		return rc;
	}
	/* ustack() and uregs[] are the calling thread's */
	host->probe_attr(pv, prp, DTRACE_PROBE_IN_KERNEL);
	return 1;
}

/* Probes for each call that has both tracepoints and matches pdp. */
static int sc_provide(dtrace_provider_t *pv, void *data,
		      const dtrace_probedesc_t *pdp)
{
	const char *dir = sc_events_dir();
	struct dirent *de;
	int n = 0, rc = 0;

	(void)data;
	if (!host->glob_match(pdp->prv, SC_PROVIDER) ||
	    !host->glob_match(pdp->mod, SC_MODULE))
		return 0;
	int entry = host->glob_match(pdp->prb, "entry");
	int ret = host->glob_match(pdp->prb, "return");
	if ((!entry && !ret) || dir == NULL)
		return 0;
	DIR *d = opendir(dir);
	if (d == NULL)
		return 0;
	while (rc >= 0 && (de = readdir(d)) != NULL) {
		const char *call = de->d_name + strlen("sys_enter_");
		if (strncmp(de->d_name, "sys_enter_", 10) != 0 ||
		    !host->glob_match(pdp->fun, call))
			continue;
		if (entry && (rc = sc_insert(pv, call, 0)) > 0)
			n += rc;
		if (rc >= 0 && ret && (rc = sc_insert(pv, call, 1)) > 0)
			n += rc;
	}
	closedir(d);
	if (rc < 0) {
		host->error(pv, "syscall: cannot create the probes of %s: %s",
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
	sc_probe_t *p = host->probe_priv(prp);

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

static int sc_enable(dtrace_provider_t *pv, void *data, dtrace_probe_t *prp)
{
	sc_probe_t *p = host->probe_priv(prp);
	char event[256];

	(void)data;
	if (!p->is_return && p->nargs < 0)
		sc_read_args(p);
	snprintf(event, sizeof(event), "sys_%s_%s",
		 p->is_return ? "exit" : "enter", p->name);
	dtrace_event_t ev = {
		.size = sizeof(ev), .type = DTRACE_EVENT_TRACEPOINT,
		.category = SC_CATEGORY, .name = event,
		.kind = p->is_return ? SC_KIND_RETURN : p->nargs,
	};
	int64_t cookie = host->event(pv, &ev);
	if (cookie < 0)
		return (int)cookie;
	return host->overlay(pv, cookie, 0, prp);
}

/*
 * Entry with N arguments: argv[i] = record[SC_ARG0_OFF + 8 i], i < N.
 * Return: argv[0] = argv[1] = the value returned; errnum = -value when
 * the value is an error number (-4095..-1), as the C library reads it.
 */
static int sc_trampoline(dtrace_provider_t *pv, void *data,
			 dtrace_emitter_t *em, int kind, int skip)
{
	const int argv = offsetof(dtrace_mstate_t, argv);

	(void)pv, (void)data, (void)skip;
	if (kind != SC_KIND_RETURN) {
		for (int i = 0; i < kind; i++) {
			host->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX,
					       SC_ARG0_OFF + 8 * i));
			host->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE,
						argv + 8 * i, DT_R1));
		}
		return 0;
	}
	int ok = host->label_new(em);
	host->emit(em, DT_LOAD(BPF_DW, DT_R1, DTRACE_REG_CTX, SC_ARG0_OFF));
	host->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv, DT_R1));
	host->emit(em, DT_STORE(BPF_DW, DTRACE_REG_MSTATE, argv + 8, DT_R1));
	host->jump(em, BPF_JSGE, DT_R1, 0, ok);
	host->jump(em, BPF_JSLT, DT_R1, -SC_ERRNO_MAX, ok);
	host->emit(em, DT_NEG64(DT_R1));
	host->emit(em, DT_STORE(BPF_W, DTRACE_REG_MSTATE,
				offsetof(dtrace_mstate_t, errnum), DT_R1));
	host->label_place(em, ok);
	return 0;
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
	.provide = sc_provide,
	.probe_args = sc_probe_args,
	.enable = sc_enable,
	.trampoline = sc_trampoline,
	.free_priv = sc_free_priv,
};

const dtrace_provider_ops_t *dtrace_provider_init(const dtrace_host_t *h)
{
	/* host->event came with 3.1, the mstate's errnum with 3.2. */
	if (h->major != DTRACE_PROVIDER_MAJOR || h->minor < 2)
		return NULL;
	host = h;
	return &sc_ops;
}
