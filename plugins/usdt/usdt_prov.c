/* SPDX-License-Identifier: MIT */
/*
 * usdt_prov.c: the usdt provider: <sys/sdt.h> probes of the files processes
 * map, and the providers applications register with dtprobed.
 *
 * Naming.  A probe is provider:module:function:name where
 *   provider	the note's provider followed by the pid of the process the
 *		probe belongs to ("python1234"), as DTrace names USDT
 *		providers; without a pid ("python") for the probe that stands
 *		for the processes not seen yet (see below);
 *   module	the name of the file holding the site ("python3.11",
 *		"libstdc++.so.6.0.30", the program's file name for a program);
 *   function	the function symbol whose range holds the site, "" if the
 *		file has no symbol for it;
 *   name	the note's name with every "__" written "-".
 *
 * Which processes.  A description whose provider field is a name followed
 * by the decimal pid of a live process ("python1234", which is what
 * "python$target" becomes) looks at that process only: the files it maps
 * now.  Any other provider field (a plain name, a glob such as
 * "postgresql*", or empty) covers every process: it makes the probes of
 * each process that maps a matching file now (or registered it with
 * dtprobed), and one more probe per (provider, module, function, name)
 * without a pid, for the processes not seen yet.  The uprobes of such a
 * description are placed for every process, so a process that starts later
 * and maps the same file fires too: the engine's overlay lookup finds the
 * probe of the firing process by its pid, else the probe without a pid.
 * A process that appears while tracing (exec, dlopen, a registration) gets
 * its own probes as soon as the plugin hears of it (see "Late").  Before
 * that, a process that registered the site with dtprobed is still named
 * right: the probe without a pid is a DTRACE_PROBE_TEMPLATE, and the
 * trampoline finds (pid, site) in dtprobed's pinned map and has the engine
 * run the firing under the process's own probe, which the engine makes in
 * BPF if need be (dtrace/probes/dt_instance.c); probe_get() then adopts it.  Only
 * a process that did not register (a <sys/sdt.h> program, a child forked
 * without exec that does not register) fires as the probe without a pid
 * until the plugin hears of it.  A process's probe answers to the
 * descriptions of every process (usdt_probe_match), so a clause of
 * "myapp*" runs once per firing, under the name "myapp1234".
 *
 * The engine asks no description another provider names exactly
 * (dt_probe_desc_elsewhere); one of every process reads each process's
 * maps once, and each file once (file_of_mapping).
 *
 * Paths.  A module field that is a path ("/usr/bin/python3.11") names one
 * file by its (device, inode), whatever link leads to it; a description of
 * every process then also makes that file's probes without a pid when no
 * process maps it (dtrace -l of a file's probes, a program not started).
 *
 * Arguments.  The specs of each site are decoded when its file is read
 * (usdt_args.c) and written to the usdt_specs map under the site's attach
 * cookie at enable time; one trampoline (usdt_tramp.c) serves every site.
 * Types come from the note sizes, or from the provider's declaration when
 * the process registered it with dtprobed.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "usdt_impl.h"
#include "usdt_reg.h"

static const dtrace_host_t *host;

/* Files with USDT probes a session keeps by default (-x usdtfiles). */
#define USDT_FILES_MAX	1024

/* One site of a probe. */
typedef struct usdt_site {
	char *path;		/* the file to place the uprobe on */
	const usdt_file_t *file;
	const usdt_note_t *note;
} usdt_site_t;

/* A probe's private data. */
typedef struct usdt_probe {
	pid_t pid;		/* 0: the processes not seen yet */
	const char *base;	/* the provider name without the pid */
	int nsites, cap;
	usdt_site_t *sites;
	bool declared;		/* decl and attrs hold a declaration */
	usdt_decl_probe_t decl;	/* as the provider file declared it */
	const char *attrs[5];	/* its stability, USDT_REG_ATTR_* */
	bool warned;		/* undecodable arguments were reported */
	dtrace_probe_t *prp;	/* the engine's probe */
	bool enabled;		/* enable() ran: sites[0..nenabled) placed */
	int nenabled;
	bool late;		/* created while tracing (see "Late") */
	bool every;		/* a description of every process matched it:
				   its sites fire in every process anyway (for
				   the probe of the processes not seen yet),
				   so its uprobes are not filtered by pid */
} usdt_probe_t;

/* What the plugin knows of an underlying probe it placed. */
typedef struct usdt_cookie {
	uint8_t flags;		/* USDT_SPEC_* given so far */
	bool inlined;		/* a trampoline carries its spec as code */
	const usdt_note_t *note; /* whose spec it has */
} usdt_cookie_t;

/* A spec waiting for the map to exist. */
typedef struct usdt_pending {
	uint32_t cookie;
	usdt_rtspec_t spec;
} usdt_pending_t;

/* The files of a process that changed while tracing (see "Late"):
 * get(pid, arg, &m) returns their number, or -errno when the process is
 * gone. */
typedef int (*files_get_f)(pid_t pid, const void *arg, usdt_mapping_t **m);

/* The process provide() answers for while tracing, asked again by the
 * engine (host->probes->provide_again). */
typedef struct usdt_late {
	pid_t pid;
	bool with_pid;		/* descriptions naming pid apply */
	files_get_f get;	/* NULL: provide() answers for nothing */
	const void *arg;
	bool got;		/* get() was called: m and n are its */
	usdt_mapping_t *m;
	int n;			/* -errno: the process is gone */
} usdt_late_t;

typedef struct usdt_state {
	usdt_filecache_t fc;
	usdt_mapping_t *all;	/* every process's files, when scanned */
	int nall;
	bool all_scanned;
	usdt_reg_t *regs;	/* dtprobed's registrations, when read */
	bool regs_read;
	dtrace_map_t *specs;
	dtrace_map_t *procs;	/* dtprobed's pinned map, when it is there */
	bool any_every;		/* a probe for every process is enabled */
	usdt_cookie_t *cookies;	/* by cookie, those placed so far */
	uint32_t ncookies;
	int nplaced;		/* sites enabled that fired in no process
				   for us before (see enable_touched) */
	usdt_pending_t *pending;
	int npending, pending_cap;
	/* processes that appear while tracing (see "Late") */
	bool watching;		/* a description asked for them */
	bool every_desc;	/* one of those covers every process */
	usdt_late_t late;
	bool tracing;
	int nkept;		/* files kept, with probes or that may have */
	int files_max;		/* -x usdtfiles: how many may be kept */
	usdt_placement_t place;	/* -x usdt.sitemode (usdt_place.c) */
	int ndropped;		/* files with matching notes not kept */
	bool matched;		/* the running provide() matched a note */
	usdt_probe_t **touched;	/* probes a late provide created or grew */
	int ntouched, touched_cap;
	int sub_fd;		/* subscription to dtprobed, -1: none */
} usdt_state_t;

/* What a description asks for: every process, or one. */
typedef struct usdt_query {
	const dtrace_probedesc_t *pdp;
	char prvpat[256];	/* the provider name or glob, without pid */
	pid_t pid;		/* 0: every process */
	bool by_path;		/* the module field is a file's path */
	dev_t dev;		/* that file, when it exists */
	ino_t ino;
} usdt_query_t;

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

static bool proc_exists(pid_t pid)
{
	char path[32];
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return access(path, F_OK) == 0;
}

/* A module field that is a path ("/usr/bin/python3.11") names one file,
 * by its (device, inode): through any link to it, or /proc/PID/root. */
static void query_path(usdt_query_t *q, const char *mod)
{
	struct stat sb;

	q->by_path = mod != NULL && mod[0] == '/' && !is_glob(mod);
	q->dev = 0;
	q->ino = 0;
	if (q->by_path && stat(mod, &sb) == 0) {
		q->dev = sb.st_dev;
		q->ino = sb.st_ino;
	}
}

static bool query_names_file(const usdt_query_t *q, const usdt_file_t *f)
{
	if (q->by_path)
		return q->ino != 0 && f->dev == q->dev && f->ino == q->ino;
	return host->probes->glob_match(q->pdp->mod, f->module);
}

/* Split "name1234" into "name" and pid 1234 when that process exists. */
static void query_init(usdt_query_t *q, const dtrace_probedesc_t *pdp)
{
	const char *prv = pdp->prv ? pdp->prv : "";
	size_t n = strlen(prv), d = n;
	q->pdp = pdp;
	q->pid = 0;
	query_path(q, pdp->mod);
	snprintf(q->prvpat, sizeof(q->prvpat), "%s", prv);
	if (is_glob(prv))
		return;
	while (d > 0 && isdigit((unsigned char)prv[d - 1]))
		d--;
	if (d == 0 || d == n || n - d > 9 || d >= sizeof(q->prvpat))
		return;
	pid_t pid = (pid_t)atol(prv + d);
	if (pid <= 0 || !proc_exists(pid))
		return;
	q->pid = pid;
	q->prvpat[d] = '\0';
}

/* The probe's private data, created with the probe when new. */
static int touch(usdt_state_t *st, usdt_probe_t *pr);

static usdt_probe_t *probe_get(dtrace_provider_t *dtp, const char *prv,
			       const char *mod, const char *fun,
			       const char *prb, pid_t pid, bool *created)
{
	dtrace_probe_t *prp = host->probes->lookup(dtp, prv, mod, fun, prb);
	*created = false;
	/* A probe without private data was made at run time by the engine
	 * (DTRACE_PROBE_TEMPLATE): probe_insert() makes it ours. */
	if (prp != NULL && host->probes->priv(prp) != NULL)
		return host->probes->priv(prp);
	usdt_probe_t *pr = calloc(1, sizeof(*pr));
	if (pr == NULL)
		return NULL;
	pr->pid = pid;
	pr->prp = host->probes->insert(dtp, prv, mod, fun, prb, pr);
	if (pr->prp == NULL) {
		free(pr);
		return NULL;
	}
	/* The probe of the processes not seen yet stands for each of them. */
	if (pid == 0 && host->probes->attr(dtp, pr->prp,
					   DTRACE_PROBE_TEMPLATE) < 0) {
		free(pr);
		return NULL;
	}
	/* A process's own probe goes with it (interface 4.3). */
	if (pid != 0 && DTRACE_HOST_HAS(host, probes, of_process))
		host->probes->of_process(dtp, pr->prp, pid);
	*created = true;
	return pr;
}

/* Add a site to a probe unless it has it already. */
static int probe_add_site(usdt_probe_t *pr, const char *path,
			  const usdt_file_t *f, const usdt_note_t *note)
{
	for (int i = 0; i < pr->nsites; i++)
		if (pr->sites[i].note == note)
			return 0;
	if (DTRACE_ARRAY_ROOM(pr->sites, pr->nsites, pr->cap) < 0)
		return -ENOMEM;
	char *copy = strdup(path);
	if (copy == NULL)
		return -ENOMEM;
	pr->sites[pr->nsites++] = (usdt_site_t){ copy, f, note };
	return 0;
}

/* Copy a registration's declaration of a probe into pr (pointers into
 * st->regs, which lives for the session). */
static void probe_decl_from_reg(usdt_probe_t *pr, const usdt_reg_t *r,
				const usdt_reg_probe_t *rp)
{
	pr->decl.name = rp->name;
	pr->decl.nargs = rp->nargs;
	pr->decl.nxargs = rp->nxargs;
	for (int i = 0; i < USDT_DECL_ARGS_MAX; i++) {
		pr->decl.native[i] = rp->native[i];
		pr->decl.xlate[i] = rp->xlate[i];
		pr->decl.mapping[i] = rp->mapping[i];
	}
	for (int i = 0; i < 5; i++)
		pr->attrs[i] = r->attrs[i];
	pr->declared = true;
}

/*
 * The declaration of this note's probe: first the one the file itself
 * carries (.dtrace_prov, linked in by `dtrace -G`), which is known before
 * the process runs its registration code (dtrace -c) and without dtprobed;
 * else, for a process's own probe, that process's registration of the same
 * file with dtprobed (a description made another way).  Any user's process
 * may register declarations for a file it maps, so a registration never
 * applies to the probes of other processes, nor to the probe of the
 * processes not seen yet, and only when root or the session's user sent
 * it (usdt_decl_trusted()).  Notes alone give no types.
 */
static void probe_find_decl(usdt_state_t *st, usdt_probe_t *pr,
			    const usdt_file_t *f, const usdt_note_t *note)
{
	const usdt_decl_t *prov;
	const usdt_decl_probe_t *dp;

	if (pr->declared)
		return;
	dp = usdt_decl_find(f->decls, f->ndecls, note->provider, note->name,
			    &prov);
	if (dp != NULL) {
		pr->decl = *dp;
		for (int i = 0; i < 5; i++)
			pr->attrs[i] = prov->attrs[i];
		pr->declared = true;
		return;
	}
	for (const usdt_reg_t *r = st->regs; r != NULL; r = r->next) {
		if ((dev_t)r->dev != f->dev || (ino_t)r->ino != f->ino ||
		    strcmp(r->provider, note->provider) != 0 ||
		    pr->pid == 0 || r->pid != pr->pid ||
		    !usdt_decl_trusted(r->pid))
			continue;
		for (int i = 0; i < r->nprobes; i++)
			if (strcmp(r->probes[i].name, note->name) == 0) {
				probe_decl_from_reg(pr, r, &r->probes[i]);
				return;
			}
	}
}

/* Whether a note answers to the query's provider, function and name (its
 * module is its file's: query_names_file()): 1, 0, or -ENOMEM. */
static int note_matches(const usdt_query_t *q, const usdt_note_t *note)
{
	if (q->pid ? strcmp(q->prvpat, note->provider) != 0 :
		     !host->probes->glob_match(q->prvpat, note->provider))
		return 0;
	if (!host->probes->glob_match(q->pdp->fun, note->func))
		return 0;
	char *name = usdt_probe_name(note->name);
	if (name == NULL)
		return -ENOMEM;
	int match = host->probes->glob_match(q->pdp->prb, name);
	free(name);
	return match != 0;
}

/* The file is the provider's for the session: probes may point into it. */
static void file_keep(usdt_state_t *st, usdt_file_t *f)
{
	if (!f->kept)
		st->nkept++;
	f->kept = true;
}

/* Whether one of f's notes answers to the query: 1, 0, or -ENOMEM. */
static int query_wants_file(const usdt_query_t *q, const usdt_file_t *f)
{
	if (!query_names_file(q, f))
		return 0;
	for (int i = 0; i < f->nnotes; i++) {
		int match = note_matches(q, &f->notes[i]);
		if (match != 0)
			return match;
	}
	return 0;
}

/* A file that cannot be read for want of descriptors or memory is said
 * by name: its probes go untraced.  A file that is gone (the process
 * exited, the program was removed) is not. */
static void file_unreadable(dtrace_provider_t *dtp, const char *path, int err)
{
	if (err == EMFILE || err == ENFILE || err == ENOMEM)
		host->report->warn(dtp, "cannot read the USDT notes of %s: %s",
				   path, strerror(err));
}

/* The file m maps, when it has notes: one read for the first time stays
 * until files_sweep() decides whether it is kept. */
static usdt_file_t *file_of_mapping(dtrace_provider_t *dtp, usdt_state_t *st,
				    const usdt_mapping_t *m)
{
	/* before tracing, a file known by its (dev, inode) costs no stat */
	usdt_file_t *f = !st->tracing && m->ino != 0 ?
		usdt_file_get_known(&st->fc, host, dtp, m->path, m->dev,
				    m->ino) :
		usdt_file_get(&st->fc, host, dtp, m->path);
	const char *path = m->path;

	if (f == NULL)
		file_unreadable(dtp, path, errno);
	return f;
}

/* Whether probes may point into f: while tracing, a file not kept yet
 * takes one of -x usdtfiles' places (files_sweep() says when none is
 * left). */
static bool file_has_room(const usdt_state_t *st, const usdt_file_t *f)
{
	return f->kept || !st->tracing || st->nkept < st->files_max;
}

/* Create the probes of one file that match the query, those of process
 * pid (0: the probes of the processes not seen yet, see "Naming").
 * Returns how many were created, or -errno. */
static int provide_file(dtrace_provider_t *dtp, usdt_state_t *st,
			const usdt_query_t *q, const char *path,
			usdt_file_t *f, pid_t pid)
{
	int created = 0;
	if (!query_names_file(q, f) || !file_has_room(st, f))
		return 0;
	for (int i = 0; i < f->nnotes; i++) {
		const usdt_note_t *note = &f->notes[i];
		char prv[300];
		int match = note_matches(q, note);
		if (match < 0)
			return match;
		if (match == 0)
			continue;
		char *name = usdt_probe_name(note->name);
		if (name == NULL)
			return -ENOMEM;
		if (pid)
			snprintf(prv, sizeof(prv), "%s%d", note->provider,
				 (int)pid);
		else
			snprintf(prv, sizeof(prv), "%s", note->provider);
		bool isnew;
		usdt_probe_t *pr = probe_get(dtp, prv, f->module, note->func,
					     name, pid, &isnew);
		free(name);
		if (pr == NULL) {
			host->report->error(dtp,
				"cannot create probe %s:%s:%s:%s: %s",
				prv, f->module, note->func, note->name,
				strerror(errno));
			return -errno;
		}
		st->matched = true;
		file_keep(st, f);
		pr->base = note->provider;
		pr->every |= q->pid == 0;
		if (isnew && st->tracing)
			pr->late = true;
		if (probe_add_site(pr, path, f, note) < 0 ||
		    (st->tracing && touch(st, pr) < 0))
			return -ENOMEM;
		probe_find_decl(st, pr, f, note);
		created += isnew;
	}
	return created;
}

/* Provide from each mapped file of a list: the probes of the process that
 * maps it, and for a description of every process, those of the
 * processes not seen yet. */
static int provide_mappings(dtrace_provider_t *dtp, usdt_state_t *st,
			    const usdt_query_t *q, const usdt_mapping_t *m,
			    int n)
{
	int total = 0;
	for (int i = 0; i < n; i++) {
		usdt_file_t *f = file_of_mapping(dtp, st, &m[i]);
		if (f == NULL)
			continue;	/* gone, unreadable, or no probes */
		pid_t pid = q->pid ? q->pid : m[i].pid;
		int rc = 0;
		if (pid != 0)
			rc = provide_file(dtp, st, q, m[i].path, f, pid);
		if (rc >= 0 && q->pid == 0) {
			int more = provide_file(dtp, st, q, m[i].path, f, 0);
			rc = more < 0 ? more : rc + more;
		}
		if (rc < 0)
			return rc;
		total += rc;
	}
	return total;
}

static void regs_load(usdt_state_t *st)
{
	if (st->regs_read)
		return;
	st->regs_read = true;
	usdt_sub_sync();
	if (usdt_reg_read_all(NULL, &st->regs) < 0)
		st->regs = NULL;	/* no dtprobed: notes alone */
}

/* Registered modules, as files to read: they are mapped by the registering
 * process, possibly in another mount namespace. */
static int provide_registered(dtrace_provider_t *dtp, usdt_state_t *st,
			      const usdt_query_t *q)
{
	int total = 0;
	for (const usdt_reg_t *r = st->regs; r != NULL; r = r->next) {
		if (q->pid ? r->pid != q->pid :
			     !host->probes->glob_match(q->prvpat, r->provider))
			continue;
		char alt[PATH_MAX];
		usdt_mapping_t m = { .path = r->module, .pid = r->pid };
		struct stat sb;
		if (stat(r->module, &sb) != 0 || sb.st_ino != (ino_t)r->ino) {
			snprintf(alt, sizeof(alt), "/proc/%d/root%s",
				 (int)r->pid, r->module);
			m.path = alt;
		}
		int rc = provide_mappings(dtp, st, q, &m, 1);
		if (rc < 0)
			return rc;
		total += rc;
	}
	return total;
}

/* A description of every process whose module is a path: the probes of
 * that file for the processes not seen yet, whether or not a process maps
 * it now (dtrace -l of a file's probes, or tracing a program before it
 * starts).  A file that cannot be read has no probes. */
static int provide_path(dtrace_provider_t *dtp, usdt_state_t *st,
			const usdt_query_t *q)
{
	char path[PATH_MAX];
	usdt_mapping_t m = { .path = path };	/* no (dev, inode): a stat */
	usdt_file_t *f;

	/* by the file's own name, as a process's maps show it, not a link's */
	if (!q->by_path || q->pid != 0 || q->ino == 0 ||
	    realpath(q->pdp->mod, path) == NULL)
		return 0;
	f = file_of_mapping(dtp, st, &m);
	if (f == NULL)
		return 0;
	return provide_file(dtp, st, q, path, f, 0);
}

/* Ask to be told of processes that appear while tracing (see "Late"); a
 * description that covers processes that do not exist yet also needs to see
 * their programs before they run: the exec gate.  The engine sets both up
 * when tracing starts, before BEGIN. */
static int watch_processes(dtrace_provider_t *dtp, const usdt_query_t *q)
{
	if (host->sites->watch_exec == NULL)
		return 0;
	return q->pid == 0 ? host->sites->gate_exec(dtp)
			   : host->sites->watch_exec(dtp);
}

static int provide_late_process(dtrace_provider_t *dtp, usdt_state_t *st,
				const usdt_query_t *q);

static int usdt_provide(dtrace_provider_t *dtp, void *data,
			const dtrace_probedesc_t *pdp)
{
	usdt_state_t *st = data;
	usdt_query_t q;
	int rc, total;

	query_init(&q, pdp);
	if (st->tracing)
		return provide_late_process(dtp, st, &q);
	regs_load(st);
	st->matched = false;
	if (q.pid) {
		usdt_mapping_t *m;
		int n = usdt_proc_mappings(host, q.pid, &m);
		if (n < 0)
			return 0;	/* it just exited: nothing to match */
		rc = provide_mappings(dtp, st, &q, m, n);
		usdt_mappings_free(m, n);
	} else {
		if (!st->all_scanned) {
			st->nall = usdt_all_mappings(host, &st->all);
			if (st->nall < 0) {
				host->report->error(dtp,
					"cannot read the processes' "
					"mappings: %s",
					strerror(-st->nall));
				st->nall = 0;
				return -ENOMEM;
			}
			st->all_scanned = true;
		}
		rc = provide_mappings(dtp, st, &q, st->all, st->nall);
		if (rc >= 0) {
			int more = provide_path(dtp, st, &q);
			rc = more < 0 ? more : rc + more;
		}
	}
	if (rc < 0)
		return rc;
	total = rc;
	rc = provide_registered(dtp, st, &q);
	if (rc < 0)
		return rc;
	/* Kept for processes that appear later: what matched a usdt probe,
	 * provider globs ("myapp*"), which may match only later, and the
	 * provider of one process ("myapp1234", myapp$target), which may
	 * dlopen() the library with the probes later (a JVM loads libjvm
	 * so).  Other descriptions (BEGIN, pid1234::malloc:entry: DTrace
	 * reserves the provider name pid for the pid provider) do not turn
	 * the exec watch on. */
	bool one_process = q.pid != 0 && strcmp(q.prvpat, "pid") != 0;
	if (st->matched || one_process ||
	    (is_glob(q.prvpat) && pdp->prv && *pdp->prv)) {
		st->watching = true;
		st->every_desc |= q.pid == 0;
		int err = watch_processes(dtp, &q);
		if (err < 0)
			return err;
	}
	return total + rc;
}

/* Argument types as the note's sizes give them. */
static const char *note_type(const usdt_arg_t *a)
{
	if (a->is_float)
		return a->size == 4 ? "float" : "double";
	switch (a->size) {
	case 1: return a->is_signed ? "int8_t" : "uint8_t";
	case 2: return a->is_signed ? "int16_t" : "uint16_t";
	case 4: return a->is_signed ? "int" : "uint32_t";
	default: return a->is_signed ? "int64_t" : "uint64_t";
	}
}

static int usdt_probe_args(dtrace_provider_t *dtp, void *data,
			   const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	const usdt_probe_t *pr = host->probes->priv(prp);
	if (pr == NULL || pr->nsites == 0)
		return 0;
	if (pr->declared) {
		const usdt_decl_probe_t *dp = &pr->decl;
		int n = dp->nxargs ? dp->nxargs : dp->nargs;
		for (int i = 0; i < n && i < DTRACE_ARGS_MAX; i++) {
			int map = dp->nxargs ? dp->mapping[i] : i;
			if (map < 0 || map >= dp->nargs)
				map = i < dp->nargs ? i : 0;
			args[i].native = dp->native[map];
			args[i].xlate = dp->nxargs ? dp->xlate[i] : NULL;
			args[i].mapping = map;
		}
		return n < DTRACE_ARGS_MAX ? n : DTRACE_ARGS_MAX;
	}
	const usdt_note_t *note = pr->sites[0].note;
	int n = note->nargs < DTRACE_ARGS_MAX ? note->nargs : DTRACE_ARGS_MAX;
	for (int i = 0; i < n; i++) {
		args[i].native = note_type(&note->args[i]);
		args[i].xlate = NULL;
		args[i].mapping = i;
	}
	return n;
}

/* "Name/Data/Class" of a declaration into three attribute slots; false
 * (slots untouched) when absent or malformed. */
static bool attr_parse(const char *a, dtrace_stability_t out[3])
{
	static const char *const classes[] = { "Unknown", "CPU", "Platform",
					       "Group", "ISA", "Common" };
	char part[3][32];
	int name, data, cls = -1;

	if (a == NULL || sscanf(a, "%31[^/]/%31[^/]/%31s", part[0], part[1],
				part[2]) != 3)
		return false;
	name = usdt_reg_stability(part[0]);
	data = usdt_reg_stability(part[1]);
	for (int c = 0; c < 6; c++)
		if (strcasecmp(part[2], classes[c]) == 0)
			cls = c;
	if (name < 0 || data < 0 || cls < 0)
		return false;
	out[0] = (dtrace_stability_t)name;
	out[1] = (dtrace_stability_t)data;
	out[2] = (dtrace_stability_t)cls;
	return true;
}

/*
 * As DTrace computes a probe's description attributes: the least stable,
 * component by component, of the provider's provider, module, function and
 * name attributes; the argument attributes are the args ones.  A component
 * the .d file did not declare keeps the default below.
 */
static void usdt_probe_stability(dtrace_provider_t *dtp, void *data,
				 const dtrace_probe_t *prp,
				 dtrace_stability_t attr[6])
{
	const usdt_probe_t *pr = host->probes->priv(prp);
	/* <sys/sdt.h> notes say nothing of stability: Evolving names and
	 * data of Common class, what USDT providers commonly declare. */
	for (int i = 0; i < 6; i++)
		attr[i] = DTRACE_STABILITY_EVOLVING;
	attr[2] = attr[5] = (dtrace_stability_t)5;	/* Common */
	if (pr == NULL || !pr->declared)
		return;
	bool any = false;
	dtrace_stability_t min[3] = { 7, 7, 5 }, one[3];
	for (int f = USDT_REG_ATTR_PROVIDER; f <= USDT_REG_ATTR_NAME; f++) {
		if (!attr_parse(pr->attrs[f], one))
			continue;
		any = true;
		for (int k = 0; k < 3; k++)
			if (one[k] < min[k])
				min[k] = one[k];
	}
	if (any)
		memcpy(attr, min, sizeof(min));
	attr_parse(pr->attrs[USDT_REG_ATTR_ARGS], attr + 3);
}

static dtrace_map_t *specs_map(dtrace_provider_t *dtp, usdt_state_t *st)
{
	if (st->specs == NULL)
		st->specs = host->bpf->map_create(dtp, USDT_SPECS_MAP,
						  BPF_MAP_TYPE_HASH,
						  sizeof(uint32_t),
						  sizeof(usdt_rtspec_t),
						  USDT_SPECS_MAX);
	return st->specs;
}

/* Write the specs kept back until the map had a descriptor. */
static int specs_flush(dtrace_provider_t *dtp, usdt_state_t *st)
{
	int fd = st->specs ? host->bpf->map_fd(st->specs) : -1;
	if (fd < 0)
		return 0;
	for (int i = 0; i < st->npending; i++) {
		int err = usdt_rtspec_store(fd, st->pending[i].cookie,
					    &st->pending[i].spec);
		if (err < 0) {
			host->report->error(dtp,
				"cannot store the argument table of "
				"a usdt probe: %s",
				strerror(-err));
			return err;
		}
	}
	st->npending = 0;
	return 0;
}

/* The entry of cookie, made if need be; NULL when out of memory. */
static usdt_cookie_t *cookie_entry(usdt_state_t *st, uint32_t cookie)
{
	if (cookie >= st->ncookies) {
		uint32_t n = cookie + 1024;
		usdt_cookie_t *c = realloc(st->cookies, n * sizeof(*c));
		if (c == NULL)
			return NULL;
		memset(c + st->ncookies, 0,
		       (n - st->ncookies) * sizeof(*c));
		st->cookies = c;
		st->ncookies = n;
	}
	return &st->cookies[cookie];
}

/* The cookie's flags: those given now and before (a site's spec is
 * written again when another probe is overlaid on it); note is its spec
 * from now on. */
static int spec_flags(usdt_state_t *st, uint32_t cookie,
		      const usdt_note_t *note, uint8_t *flags)
{
	usdt_cookie_t *c = cookie_entry(st, cookie);

	if (c == NULL)
		return -ENOMEM;
	c->flags |= *flags;
	c->note = note;
	*flags = c->flags;
	return 0;
}

static int spec_queue(usdt_state_t *st, uint32_t cookie,
		      const usdt_note_t *note, uint8_t flags)
{
	if (spec_flags(st, cookie, note, &flags) < 0)
		return -ENOMEM;
	for (int i = 0; i < st->npending; i++)
		if (st->pending[i].cookie == cookie) {
			st->pending[i].spec.flags |= flags;
			return 0;
		}
	if (DTRACE_ARRAY_ROOM(st->pending, st->npending, st->pending_cap) < 0)
		return -ENOMEM;
	usdt_pending_t *p = &st->pending[st->npending++];
	p->cookie = cookie;
	usdt_rtspec_fill(note, usdt_site_shift(&st->place, note), &p->spec);
	p->spec.flags |= flags;
	return 0;
}

static void probe_fullname(const dtrace_probe_t *prp, char *buf, size_t len)
{
	snprintf(buf, len, "%s:%s:%s:%s",
		 host->probes->name(prp, DTRACE_FIELD_PRV),
		 host->probes->name(prp, DTRACE_FIELD_MOD),
		 host->probes->name(prp, DTRACE_FIELD_FUN),
		 host->probes->name(prp, DTRACE_FIELD_PRB));
}

/* The warning for argument i of the probe name, spec its text, when it
 * reads as 0. */
static void warn_arg(dtrace_provider_t *dtp, const char *name, int i,
		     const char *spec, const usdt_arg_t *a)
{
	if (a->error == -EOPNOTSUPP)
		host->report->warn(dtp,
			"probe %s: cannot read argument %d (\"%s\"): a uprobe "
			"does not see SSE registers; arg%d reads as 0",
			name, i, spec, i);
	else
		host->report->warn(dtp,
			"probe %s: cannot decode argument %d (\"%s\"): "
			"arg%d reads as 0", name, i, spec, i);
}

/* Once per probe: each argument that reads as 0. */
static void warn_args(dtrace_provider_t *dtp, usdt_probe_t *pr,
		      const dtrace_probe_t *prp, const usdt_note_t *note)
{
	char name[512];
	if (pr->warned ||
	    (note->bad_arg < 0 && note->nargs <= DTRACE_ARGS_MAX))
		return;		/* nothing to say: no name made */
	probe_fullname(prp, name, sizeof(name));
	if (note->bad_arg >= 0) {
		char *copy = strdup(note->argstr), *save = NULL;
		const char *tok = copy ? strtok_r(copy, " \t", &save) : NULL;
		for (int i = 0; tok != NULL && i < note->nargs &&
				i < DTRACE_ARGS_MAX;
		     i++, tok = strtok_r(NULL, " \t", &save))
			if (note->args[i].loc == USDT_LOC_NONE)
				warn_arg(dtp, name, i, tok, &note->args[i]);
		free(copy);
		pr->warned = true;
	}
	if (note->nargs > DTRACE_ARGS_MAX) {
		host->report->warn(dtp,
				   "probe %s: has %d arguments; only args[0.."
				   "%d] are available",
				   name, note->nargs, DTRACE_ARGS_MAX - 1);
		pr->warned = true;
	}
}

/* Whether two notes' arguments are read alike. */
static bool same_spec(const usdt_state_t *st, const usdt_note_t *a,
		      const usdt_note_t *b)
{
	usdt_rtspec_t ra, rb;

	usdt_rtspec_fill(a, usdt_site_shift(&st->place, a), &ra);
	usdt_rtspec_fill(b, usdt_site_shift(&st->place, b), &rb);
	return memcmp(&ra, &rb, sizeof(ra)) == 0;
}

/* A site whose spec a built program carries as code, given another spec
 * (its file was rewritten in place while traced): the program goes on
 * reading the first, which the user is told. */
static void warn_inlined_changed(dtrace_provider_t *dtp, usdt_state_t *st,
				 uint32_t cookie, const usdt_site_t *s)
{
	const usdt_cookie_t *c = &st->cookies[cookie];

	if (!c->inlined || c->note == NULL || c->note == s->note ||
	    same_spec(st, c->note, s->note))
		return;
	host->report->warn(dtp,
		"the site at offset 0x%llx of %s changed while "
		"traced: its arguments are read as it was first seen",
		(unsigned long long)s->note->offset, s->path);
}

/* Place one site's uprobe, overlay the probe on it, queue its specs. */
static int enable_site(dtrace_provider_t *dtp, usdt_state_t *st,
		       usdt_probe_t *pr, dtrace_probe_t *prp,
		       const usdt_site_t *s)
{
	/* One link for every process, not one per process and another for
	 * every process, which would run a firing twice (dt_prog_attach.c). */
	if (s->note->nop5)
		usdt_placement_decide(host, dtp, &st->place);
	dtrace_uprobe_t up = {
		.path = s->path,
		.offset = s->note->offset +
			  usdt_site_shift(&st->place, s->note),
		.ref_ctr_offset = s->note->sema ? s->note->sema_offset : 0,
		.pid = pr->every ? 0 : pr->pid,
		.kind = 0,
		.flags = 0,
	};
	int64_t cookie = host->sites->uprobe(dtp, &up);
	if (cookie <= 0)
		return cookie < 0 ? (int)cookie : -EINVAL;
	int err = host->sites->overlay(dtp, cookie, pr->pid, prp);
	if (err < 0)
		return err;
	usdt_placement_debug(host, dtp, &st->place, prp, s->note, s->path);
	/* A site the probe for every process covered fired already. */
	if ((uint32_t)cookie >= st->ncookies ||
	    !(st->cookies[cookie].flags & USDT_SPEC_EVERY))
		st->nplaced++;
	if ((uint32_t)cookie < st->ncookies)
		warn_inlined_changed(dtp, st, (uint32_t)cookie, s);
	st->any_every |= pr->pid == 0;
	return spec_queue(st, (uint32_t)cookie, s->note,
			  pr->pid == 0 ? USDT_SPEC_EVERY : 0);
}

static int usdt_enable(dtrace_provider_t *dtp, void *data, dtrace_probe_t *prp)
{
	usdt_state_t *st = data;
	usdt_probe_t *pr = host->probes->priv(prp);
	int placed = 0, err = -ENOENT;
	char name[512];

	if (pr == NULL || specs_map(dtp, st) == NULL)
		return -EINVAL;
	for (int i = 0; i < pr->nsites; i++) {
		const usdt_site_t *s = &pr->sites[i];
		int rc = enable_site(dtp, st, pr, prp, s);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0) {
			probe_fullname(prp, name, sizeof(name));
			host->report->warn(dtp,
					   "probe %s: cannot trace the site at "
					   "offset 0x%llx of %s: %s",
					   name,
					   (unsigned long long)s->note->offset,
					   s->path, strerror(-rc));
			err = rc;
			continue;
		}
		warn_args(dtp, pr, prp, s->note);
		placed++;
	}
	pr->enabled = true;
	pr->nenabled = pr->nsites;
	if (placed == 0) {
		probe_fullname(prp, name, sizeof(name));
		host->report->error(dtp, "failed to enable %s: %s", name,
				    strerror(-err));
		return err;
	}
	return specs_flush(dtp, st);
}

/*
 * The sites of the program being built, when they are few
 * (USDT_INLINE_SITES) and all known: their specs into buf and sites[], for
 * the trampoline to carry as code.  A site whose flags may still change
 * (one not for every process, while the trampoline checks registrations)
 * is left to the lookup, as are other providers' sites.  Returns how many.
 */
static int inline_sites(const dtrace_trampoline_t *tr, usdt_state_t *st,
			usdt_tramp_site_t *sites, usdt_rtspec_t *buf)
{
	int n = 0;

	if (tr->ncookies > USDT_INLINE_SITES ||
	    getenv("DTRACE_BENCH_USDT_LOOKUP") != NULL)
		return 0;
	for (size_t i = 0; i < tr->ncookies; i++) {
		int64_t cookie = tr->cookies[i];
		if (cookie <= 0 || (uint64_t)cookie >= st->ncookies)
			continue;
		usdt_cookie_t *c = &st->cookies[cookie];
		if (c->note == NULL || (st->procs != NULL &&
					!(c->flags & USDT_SPEC_EVERY)))
			continue;
		usdt_rtspec_fill(c->note, usdt_site_shift(&st->place,
							  c->note), &buf[n]);
		buf[n].flags |= c->flags;
		c->inlined = true;
		sites[n] = (usdt_tramp_site_t){ (uint32_t)cookie, &buf[n] };
		n++;
	}
	return n;
}

static int usdt_trampoline(dtrace_provider_t *dtp, void *data,
			   dtrace_emitter_t *em, const dtrace_trampoline_t *tr)
{
	usdt_state_t *st = data;
	dtrace_map_t *specs = specs_map(dtp, st);
	if (specs == NULL)
		return -ENOMEM;
	/* The session's maps exist by now: write what enable() queued. */
	int err = specs_flush(dtp, st);
	if (err < 0)
		return err;
	/* dtprobed's map names the processes that registered a site, when a
	 * probe for every process is traced, or may be once a process maps
	 * a matching file (a description of every process that matched
	 * nothing yet, -Z), and a daemon made the map.  This program serves
	 * the sites placed later too. */
	if ((st->any_every || st->every_desc) && st->procs == NULL &&
	    access(usdt_reg_map_path(), F_OK) == 0)
		st->procs = host->bpf->map_pinned(dtp, usdt_reg_map_path());
	usdt_rtspec_t buf[USDT_INLINE_SITES];
	usdt_tramp_site_t sites[USDT_INLINE_SITES];
	int nsites = inline_sites(tr, st, sites, buf);
	usdt_tramp_emit(host, em, tr, specs, st->procs, sites, nsites);
	return 0;
}

static void files_sweep(dtrace_provider_t *dtp, usdt_state_t *st);

/* Tracing starts: from now on, processes that exec and libraries that the
 * loader maps are matched against the descriptions (see "Late"). */
static int usdt_start(dtrace_provider_t *dtp, void *data)
{
	usdt_state_t *st = data;
	int err = specs_flush(dtp, st);

	if (err < 0)
		return err;
	files_sweep(dtp, st);
	st->tracing = true;
	if (st->watching && st->sub_fd < 0)
		st->sub_fd = usdt_sub_open();
	if (st->sub_fd < 0 && st->any_every)
		usdt_sub_warn_none(host, dtp);
	return 0;
}

/*
 * Late: processes and libraries that appear while tracing.
 *
 * Once tracing, the engine tells notice_process() of each exec on the
 * machine and of each change the dynamic loader makes to a process's
 * libraries (dt_exec.c).  The plugin notes that process (usdt_late_t) and
 * has the engine ask every description again (host->probes->provide_again):
 * provide() then matches that process's mapped files against each
 * description that applies to it (every "provider*" description; a
 * "name1234" description only for process 1234) exactly as before tracing,
 * the engine enables the probes this creates, and the plugin places the
 * sites it added to probes enabled already.  The descriptions are the
 * engine's (host->probes->description()); the plugin keeps none.
 *
 * Nothing is done for a process none of whose files carry matching notes,
 * and nothing is kept of such files but their identity (usdt_notes.c): a
 * file seen again costs one stat(), and a machine making fresh programs
 * whose notes match no description (a build, a CI runner, a user copying
 * binaries) costs the session neither descriptors nor memory that grows
 * with them.  A file whose notes match a description, whatever process it
 * names, is kept for the session (probes point into it, or will when that
 * process maps it), up to -x usdtfiles files (files_max, counted from
 * those kept when tracing began); past it, its probes are not made, and
 * dtrace says so once, then how many went untraced when the session ends.
 *
 * The exec watch runs a few milliseconds behind the process, so when a
 * description covers every process the plugin also asks for the exec gate:
 * the engine holds an exec that maps files with notes it has not shown yet
 * and passes them to notice_files(), which places the uprobes on the files
 * before the program runs.  Libraries dlopen()ed later are still seen
 * through the loader's hook, behind.  The plugin also subscribes to
 * dtprobed (usdt_sub.c): a process built with -G waits in its registration
 * until poll() placed its probes and acked.
 */

/* A file with matching notes past -x usdtfiles: said once by name, and
 * counted for the end of the session. */
static void file_dropped(dtrace_provider_t *dtp, usdt_state_t *st,
			 const usdt_file_t *f)
{
	if (st->ndropped++ == 0)
		host->report->warn(
			dtp,
			"%s has USDT probes that are not traced: %d "
			"files with USDT probes are kept already, as many "
			"as they may (-x usdtfiles)",
			f->path, st->files_max);
}

/* Whether one of f's notes answers to one of the session's descriptions,
 * whatever process it names: 1, 0, or -ENOMEM. */
static int file_wanted(dtrace_provider_t *dtp, const usdt_file_t *f)
{
	const dtrace_probedesc_t *pdp;

	for (size_t i = 0; (pdp = host->probes->description(dtp, i)); i++) {
		usdt_query_t q;

		query_init(&q, pdp);
		int match = query_wants_file(&q, f);
		if (match != 0)
			return match;
	}
	return 0;
}

/* After the descriptions were matched, as tracing starts and after each
 * late provide: the files read that no probe points into are kept when
 * their notes answer to a description (within -x usdtfiles while tracing),
 * else forgotten. */
static void files_sweep(dtrace_provider_t *dtp, usdt_state_t *st)
{
	usdt_file_t *next;

	for (usdt_file_t *f = st->fc.files; f != NULL; f = next) {
		next = f->next;
		if (f->kept)
			continue;
		int wanted = file_wanted(dtp, f);
		if (wanted > 0 && file_has_room(st, f)) {
			file_keep(st, f);
			continue;
		}
		if (wanted > 0)
			file_dropped(dtp, st, f);
		else if (wanted < 0)
			file_unreadable(dtp, f->path, -wanted);
		usdt_filecache_forget(&st->fc, f);
	}
}

static int touch(usdt_state_t *st, usdt_probe_t *pr)
{
	for (int i = 0; i < st->ntouched; i++)
		if (st->touched[i] == pr)
			return 0;
	if (DTRACE_ARRAY_ROOM(st->touched, st->ntouched, st->touched_cap) < 0)
		return -ENOMEM;
	st->touched[st->ntouched++] = pr;
	return 0;
}

/* Enable what a late provide created or added that the engine did not:
 * the sites added to probes enabled already, and the probes made at run
 * time that the provide made ours.  0 or -errno. */
static int enable_touched(dtrace_provider_t *dtp, usdt_state_t *st)
{
	for (int i = 0; i < st->ntouched; i++) {
		usdt_probe_t *pr = st->touched[i];
		int before = pr->nenabled;

		if (!pr->enabled && !pr->late)
			continue;	/* no clause wanted it at start */
		if (!pr->enabled) {
			int rc = usdt_enable(dtp, st, pr->prp);
			if (rc == -ENOMEM)
				return rc;
			continue;
		}
		for (int j = before; j < pr->nsites; j++) {
			int rc = enable_site(dtp, st, pr, pr->prp,
					     &pr->sites[j]);
			if (rc == -ENOMEM)
				return rc;
		}
		pr->nenabled = pr->nsites;
	}
	st->ntouched = 0;
	return specs_flush(dtp, st);
}

/* provide() while tracing: the files of the process that changed, for a
 * description that applies to it; read once, for the first. */
static int provide_late_process(dtrace_provider_t *dtp, usdt_state_t *st,
				const usdt_query_t *q)
{
	usdt_late_t *l = &st->late;

	if (l->get == NULL || (q->pid != 0 && (!l->with_pid ||
					       q->pid != l->pid)))
		return 0;
	if (!l->got) {
		l->got = true;
		l->n = l->get(l->pid, l->arg, &l->m);
	}
	if (l->n < 0)
		return 0;	/* gone: nothing to match */
	return provide_mappings(dtp, st, q, l->m, l->n);
}

/* Match the files of pid (from get()) against the descriptions that apply
 * to it (those of every process, and pid's own when with_pid) and enable
 * what that creates or adds.  Returns the number of sites placed that no
 * probe for every process covered already (the engine reports those as a
 * latency: what fired before was lost), or -errno. */
static int provide_late(dtrace_provider_t *dtp, usdt_state_t *st, pid_t pid,
			bool with_pid, files_get_f get, const void *arg)
{
	int placed = st->nplaced;

	st->late = (usdt_late_t){ .pid = pid, .with_pid = with_pid,
				  .get = get, .arg = arg };
	int rc = host->probes->provide_again(dtp);
	if (st->late.got && st->late.n >= 0)
		usdt_mappings_free(st->late.m, st->late.n);
	st->late = (usdt_late_t){ 0 };
	files_sweep(dtp, st);
	if (rc >= 0)
		rc = enable_touched(dtp, st);
	st->ntouched = 0;
	return rc < 0 ? rc : st->nplaced - placed;
}

static int files_of_process(pid_t pid, const void *arg, usdt_mapping_t **m)
{
	(void)arg;
	return usdt_proc_mappings(host, pid, m);
}

static int usdt_notice_process(dtrace_provider_t *dtp, void *data, pid_t pid,
			       int what)
{
	(void)what;
	return provide_late(dtp, data, pid, true, files_of_process, NULL);
}

/* The paths of notice_files(), as a mapping list. */
typedef struct path_list {
	const char *const *paths;
	int n;
} path_list_t;

static int files_of_list(pid_t pid, const void *arg, usdt_mapping_t **m)
{
	const path_list_t *pl = arg;

	*m = calloc((size_t)pl->n + 1, sizeof(**m));
	if (*m == NULL)
		return -ENOMEM;
	for (int i = 0; i < pl->n; i++) {
		if (((*m)[i].path = strdup(pl->paths[i])) == NULL) {
			usdt_mappings_free(*m, i);
			return -ENOMEM;
		}
		(*m)[i].pid = pid;	/* exec keeps the pid */
	}
	return pl->n;
}

/* The exec gate: a program about to start maps these files.  Its pid still
 * runs the old program, so descriptions naming that pid do not apply: the
 * exec watch matches them once the new program is there.  Descriptions of
 * every process get the probes of that pid at once (exec keeps it) besides
 * those of the processes not seen yet. */
static int usdt_notice_files(dtrace_provider_t *dtp, void *data, pid_t pid,
			     const char *const *paths, int npaths)
{
	path_list_t pl = { paths, npaths };

	return provide_late(dtp, data, pid, false, files_of_list, &pl);
}

/* dtprobed's notices: a process registered and waits until its probes are
 * placed (usdt_sub.c).  Place them as for an exec, then ack. */
static int usdt_event_fd(dtrace_provider_t *dtp, void *data)
{
	usdt_state_t *st = data;
	return st->sub_fd;
}

static int usdt_poll(dtrace_provider_t *dtp, void *data)
{
	usdt_state_t *st = data;
	pid_t pid;
	int rc;

	while (st->sub_fd >= 0 && (rc = usdt_sub_next(st->sub_fd, &pid)) != 0) {
		if (rc < 0) {
			close(st->sub_fd);
			st->sub_fd = -1;
			break;
		}
		int err = usdt_notice_process(dtp, st, pid,
					      DTRACE_NOTICE_EXEC);
		usdt_sub_ack(st->sub_fd, pid);
		if (err < 0)
			return err;
	}
	return 0;
}

static void *usdt_attach_session(dtrace_provider_t *dtp)
{
	usdt_state_t *st = calloc(1, sizeof(*st));
	if (st == NULL) {
		host->report->error(dtp, "usdt: out of memory");
		return NULL;
	}
	st->sub_fd = -1;
	st->files_max = USDT_FILES_MAX;
	return st;
}

static void usdt_free_priv(void *data, void *priv)
{
	usdt_probe_t *pr = priv;
	if (pr == NULL)
		return;
	for (int i = 0; i < pr->nsites; i++)
		free(pr->sites[i].path);
	free(pr->sites);
	free(pr);
}

static void usdt_detach_session(dtrace_provider_t *dtp, void *data)
{
	usdt_state_t *st = data;
	if (st == NULL)
		return;
	if (st->ndropped > 0)
		host->report->warn(dtp,
				   "%d files with USDT probes not traced: more "
				   "than %d (-x usdtfiles)",
				   st->ndropped, st->files_max);
	usdt_filecache_free(&st->fc);
	usdt_mappings_free(st->all, st->nall);
	usdt_reg_free(st->regs);
	free(st->pending);
	free(st->cookies);
	free(st->touched);
	if (st->sub_fd >= 0)
		close(st->sub_fd);
	free(st);
}

/* Whether the probe's module is the one the description names: by the
 * file of one of its sites for a path (a probe the engine made at run time
 * has no sites yet: by the path's file name), else by a glob on its name. */
static bool probe_in_module(const usdt_query_t *q, const usdt_probe_t *pr,
			    const char *mod)
{
	const char *slash;

	if (!q->by_path)
		return host->probes->glob_match(q->pdp->mod, mod);
	if (pr == NULL) {
		slash = strrchr(q->pdp->mod, '/');
		return strcmp(slash + 1, mod) == 0;
	}
	for (int i = 0; i < pr->nsites; i++)
		if (query_names_file(q, pr->sites[i].file))
			return true;
	return false;
}

/* A process's probe answers to its own provider name ("myapp1234") and,
 * for descriptions of every process, to the name without the pid ("myapp",
 * "myapp*", "*"); a description naming another pid does not match it.  A
 * probe of the processes not seen yet has no pid in its name. */
static int usdt_probe_match(dtrace_provider_t *dtp, void *data,
			    const dtrace_probe_t *prp,
			    const dtrace_probedesc_t *pdp)
{
	const usdt_probe_t *pr = host->probes->priv(prp);
	const char *prv = host->probes->name(prp, DTRACE_FIELD_PRV);
	usdt_query_t q;

	query_init(&q, pdp);
	if (!probe_in_module(&q, pr,
			     host->probes->name(prp, DTRACE_FIELD_MOD)) ||
	    !host->probes->glob_match(pdp->fun,
				      host->probes->name(prp,
							 DTRACE_FIELD_FUN)) ||
	    !host->probes->glob_match(pdp->prb,
				      host->probes->name(prp,
							 DTRACE_FIELD_PRB)))
		return 0;
	if (host->probes->glob_match(pdp->prv, prv))
		return 1;
	return pr != NULL && pr->pid != 0 && pr->base != NULL && q.pid == 0 &&
	       host->probes->glob_match(q.prvpat, pr->base);
}

static int usdt_set_option(dtrace_provider_t *dtp, void *data,
			   const char *name, const char *value)
{
	usdt_state_t *st = data;

	return usdt_option_set(host, dtp, name, value, &st->files_max,
			       &st->place);
}

/* USDT providers are named by the programs that carry them. */
static const char *const usdt_names[] = { "*", NULL };
/* The files the exec gate must show us: those with USDT notes. */
static const char *const usdt_gate_sections[] = { ".note.stapsdt", NULL };

static const dtrace_provider_ops_t usdt_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "usdt",
	.names = usdt_names,
	.attach_session = usdt_attach_session,
	.provide = usdt_provide,
	.probe_args = usdt_probe_args,
	.probe_stability = usdt_probe_stability,
	.enable = usdt_enable,
	.trampoline = usdt_trampoline,
	.start = usdt_start,
	.free_priv = usdt_free_priv,
	.detach_session = usdt_detach_session,
	.notice_process = usdt_notice_process,
	.notice_files = usdt_notice_files,
	.event_fd = usdt_event_fd,
	.poll = usdt_poll,
	.probe_match = usdt_probe_match,
	.options = usdt_option_list,
	.set_option = usdt_set_option,

	.gate_sections = usdt_gate_sections,
};

DTRACE_PROVIDER(usdt_ops, host)
