/* SPDX-License-Identifier: MIT */
/*
 * pid.c: the pid provider: function entry, return and instruction probes
 * in one process, pidNNN:MODULE:FUNCTION:NAME.
 *
 * Discovery is on demand: provide() looks only at the process a description
 * names (pidNNN, NNN decimal; a glob or an empty provider matches only the
 * processes provide() has already looked into, so "pid*" alone matches
 * nothing, as in DTrace), reads its modules from /proc/PID/maps again each
 * time (libraries come and go with dlopen), and creates probes only for the
 * modules and functions the description matches.
 *
 * Names.  The module of a probe is "a.out" for the executable, else the
 * library's file name ("libc.so.6"); a description may also name it by its
 * full path, or by the file name up to a '.' ("libc", "libc.so"), or by a
 * glob on the file name or the path (probe_match() tells the engine).  The
 * function is the symbol's preferred name, whichever of its aliases a
 * description names (see "Aliases" below).  The name is "entry",
 * "return", or the offset of an instruction in hex without 0x ("1c").  A
 * description whose name is empty or a glob creates entry, return and one
 * probe per instruction.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pid_impl.h"

const dtrace_host_t *pid_host;

/* ---- names -------------------------------------------------------------- */

static bool has_glob(const char *s)
{
	return s != NULL && strpbrk(s, "*?[\\") != NULL;
}

static bool is_empty(const char *s)
{
	return s == NULL || *s == '\0';
}

/* "pid1234" -> 1234; 0 if s is not a literal pid provider name. */
static pid_t literal_pid(const char *s)
{
	const char *p;
	long v;

	if (s == NULL || strncmp(s, "pid", 3) != 0 || s[3] == '\0' ||
	    s[3] == '0')
		return 0;
	for (p = s + 3; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	v = strtol(s + 3, NULL, 10);
	return v > 0 && v <= INT32_MAX ? (pid_t)v : 0;
}

/* "pid" and digits that are no process id ("pid0", "pid007"...). */
static bool bad_literal_pid(const char *s)
{
	return s != NULL && strncmp(s, "pid", 3) == 0 && s[3] != '\0' &&
	       strspn(s + 3, "0123456789") == strlen(s + 3) &&
	       literal_pid(s) == 0;
}

/* An error with the tag DTrace gives the mistake, on a host that takes
 * one (3.4), else without. */
static void __attribute__((format(printf, 3, 4)))
pid_error_tag(dtrace_provider_t *pv, const char *tag, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pid_host->report->error_tag(pv, tag, "%s", msg);
}

/* A literal offset name: hex digits only (no 0x, as DTrace writes them). */
static bool parse_offset(const char *s, uint64_t *offp)
{
	char *end;

	if (is_empty(s) || strspn(s, "0123456789abcdefABCDEF") != strlen(s) ||
	    strlen(s) > 16)
		return false;
	*offp = strtoull(s, &end, 16);
	return true;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Whether the description's module field designates the module named name
 * (a.out or the file name) mapped from path. */
static bool module_matches(const char *pat, const char *name, bool is_exe,
			   const char *path)
{
	dtrace_module_t m = { .name = name, .path = path, .is_exe = is_exe };

	if (is_empty(pat))
		return true;
	if (!has_glob(pat))
		return pid_host->proc->module_name_is(&m, pat);
	return pid_host->probes->glob_match(pat, name) ||
	       pid_host->probes->glob_match(pat, base_name(path)) ||
	       pid_host->probes->glob_match(pat, path);
}

static bool name_matches(const char *pat, const char *s)
{
	return is_empty(pat) || pid_host->probes->glob_match(pat, s);
}

/* ---- targets ------------------------------------------------------------ */

/* The session's view of pid, its modules read again from /proc. */
pid_target_t *pid_target_refresh(dtrace_provider_t *pv, pid_session_t *ps,
				 pid_t pid, int *errp)
{
	dtrace_proc_t *proc;
	pid_maps_t maps = { NULL, 0 };
	char msg[256];
	int i, err;

	/* the mappings first: see pid_late.c */
	err = pid_maps_read(pid, &maps);
	if (err == 0)
		err = pid_host->proc->grab(pv, pid, &proc, msg, sizeof(msg));
	else
		snprintf(msg, sizeof(msg), "%s", strerror(-err));
	if (err != 0) {
		pid_maps_free(&maps);
		/* DTrace's words; the reason when it is more than ESRCH */
		if (err == -ESRCH)
			pid_error_tag(pv, "D_PROC_GRAB", "failed to grab "
				      "process %d", (int)pid);
		else
			pid_error_tag(pv, "D_PROC_GRAB", "failed to grab "
				      "process %d: %s", (int)pid, msg);
		*errp = err;
		return NULL;
	}
	for (i = 0; i < ps->ntargets; i++) {
		if (ps->targets[i].pid == pid) {
			/* probes keep pointers into files, which live in the
			 * cache; the module list itself can go */
			pid_host->proc->release(ps->targets[i].proc);
			ps->targets[i].proc = proc;
			pid_maps_free(&ps->targets[i].maps);
			ps->targets[i].maps = maps;
			return &ps->targets[i];
		}
	}
	pid_target_t *t = realloc(ps->targets,
				  (ps->ntargets + 1) * sizeof(*t));
	if (t == NULL) {
		pid_host->proc->release(proc);
		pid_maps_free(&maps);
		*errp = -ENOMEM;
		pid_host->report->error(pv, "out of memory");
		return NULL;
	}
	ps->targets = t;
	t[ps->ntargets] = (pid_target_t){ .pid = pid, .proc = proc,
					  .maps = maps };
	return &t[ps->ntargets++];
}

/* ---- probe creation ----------------------------------------------------- */

/* What provide() is creating probes for. */
typedef struct provide_ctx {
	dtrace_provider_t *pv;
	pid_session_t *ps;
	const dtrace_probedesc_t *pdp;
	pid_t pid;
	char prv[32];
	const dtrace_module_t *mod;
	const dtrace_sym_t *sym;
	int created;
	int err;
	bool reported;		/* err's message is given (pid_error_tag) */
	bool strict;		/* the description names the provider (pid1234,
				   pid:/path): DTrace's errors for what it
				   cannot have; a glob just matches less */
	dtrace_probe_t **fresh;	/* if non-NULL: the probes created */
	int nfresh, fresh_cap;
} provide_ctx_t;

static void probe_free(pid_probe_t *pp)
{
	if (pp == NULL)
		return;
	free(pp->path);
	free(pp->modpath);
	free(pp);
}

/* Create one probe (unless it exists).  off is used by offset probes. */
static void create_probe(provide_ctx_t *c, pid_site_t site, uint64_t off,
			 const char *prb)
{
	pid_probe_t *pp;

	if (pid_host->probes->lookup(c->pv, c->prv, c->mod->name, c->sym->name,
				     prb) != NULL)
		return;
	pp = calloc(1, sizeof(*pp));
	if (pp == NULL || (pp->path = strdup(c->mod->file_path)) == NULL ||
	    (pp->modpath = strdup(c->mod->path)) == NULL) {
		probe_free(pp);
		c->err = -ENOMEM;
		return;
	}
	pp->pid = c->pid;
	pp->site = site;
	pp->file = c->mod->file;
	pp->func_addr = c->sym->addr;
	pp->func_size = c->sym->size;
	pp->off = off;
	dtrace_probe_t *prp = pid_host->probes->insert(c->pv, c->prv,
						       c->mod->name,
						       c->sym->name, prb, pp);
	if (prp == NULL) {
		probe_free(pp);
		c->err = -errno;
		return;
	}
	if (site == PID_SITE_ENTRY || (site == PID_SITE_OFFSET && off == 0))
		pid_host->probes->attr(c->pv, prp, DTRACE_PROBE_AT_ENTRY);
	if (site == PID_SITE_RETURN)
		pid_host->probes->attr(c->pv, prp, DTRACE_PROBE_AT_RETURN);
	/* Entry and return probes are typed by the function's DWARF. */
	if (site != PID_SITE_OFFSET)
		pid_host->probes->at_function(c->pv, prp, c->mod->file);
	c->created++;
	if (c->fresh != NULL) {
		if (DTRACE_ARRAY_ROOM(c->fresh, c->nfresh, c->fresh_cap) < 0) {
			c->err = -ENOMEM;
			return;
		}
		c->fresh[c->nfresh++] = prp;
	}
}

static int offset_probe_cb(uint64_t off, void *arg)
{
	provide_ctx_t *c = arg;
	char name[24];

	snprintf(name, sizeof(name), "%" PRIx64, off);
	if (name_matches(c->pdp->prb, name))
		create_probe(c, PID_SITE_OFFSET, off, name);
	return c->err != 0;
}

/* A literal name that is neither entry, return nor an offset in the
 * function: DTrace's error. */
static void provide_bad_name(provide_ctx_t *c, const char *prb)
{
	uint64_t off;

	if (!parse_offset(prb, &off))
		pid_error_tag(c->pv, "D_PROC_NAME", "'%s' is an invalid probe "
			      "name", prb);
	else
		pid_error_tag(c->pv, "D_PROC_OFF", "offset 0x%" PRIx64
			      " outside of function '%s'", off, c->sym->name);
	c->err = -EINVAL;
	c->reported = true;
}

/*
 * The probe at a literal offset, named as DTrace prints it ("01C" becomes
 * "1c").  An offset inside an instruction is DTrace's error when the
 * description names the process; a glob over processes creates the probe
 * and enable() skips it with a warning.
 */
static void provide_offset(provide_ctx_t *c, uint64_t off)
{
	char name[24];

	if (c->strict && c->sym->size > 0 &&
	    !pid_insn_is_boundary(c->ps, c->mod->file, c->sym->addr,
				  c->sym->size, off)) {
		pid_error_tag(c->pv, "D_PROC_ALIGN", "offset 0x%" PRIx64
			      " is not aligned on an instruction", off);
		c->err = -EINVAL;
		c->reported = true;
		return;
	}
	snprintf(name, sizeof(name), "%" PRIx64, off);
	create_probe(c, PID_SITE_OFFSET, off, name);
}

/* The probes of one function that the description's name field asks for. */
static void provide_function(provide_ctx_t *c)
{
	const char *prb = c->pdp->prb;
	uint64_t off;

	if (name_matches(prb, "entry"))
		create_probe(c, PID_SITE_ENTRY, 0, "entry");
	if (name_matches(prb, "return"))
		create_probe(c, PID_SITE_RETURN, 0, "return");
	if (is_empty(prb) || has_glob(prb)) {
		if (c->sym->size == 0)
			offset_probe_cb(0, c);	/* only the entry is known */
		else
			pid_insn_each(c->ps, c->mod->file, c->sym->addr,
				      c->sym->size, offset_probe_cb, c);
	} else if (parse_offset(prb, &off) &&
		   (off == 0 || off < c->sym->size)) {
		provide_offset(c, off);
	} else if (c->strict && strcmp(prb, "entry") != 0 &&
		   strcmp(prb, "return") != 0) {
		provide_bad_name(c, prb);
	}
}

/*
 * Aliases.  A function may have several names at one address (glibc's
 * malloc and __libc_malloc, a weak usleep and its strong twin).  DTrace
 * names its probes after one of them, the preferred one (global before
 * weak before local, then the fewest leading underscores: symbols() puts
 * it first at its address), whichever name a description used; and a
 * description naming any of them matches them.  So a function has one
 * probe of each kind, and probefunc and -l show the same name.
 */

/* The preferred name of the function s is a name of; syms is the
 * module's symbols() array that s points into. */
static const dtrace_sym_t *preferred_alias(const dtrace_sym_t *syms,
					   const dtrace_sym_t *s)
{
	while (s > syms && s[-1].addr == s->addr)
		s--;
	return s;
}

/* How many names, from s (its preferred one) on, share s's address. */
static size_t alias_count(const dtrace_sym_t *s, const dtrace_sym_t *end)
{
	size_t n = 1;

	while (s + n < end && s[n].addr == s->addr)
		n++;
	return n;
}

/* Whether pat matches one of the n names from s on. */
static bool alias_matches(const char *pat, const dtrace_sym_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (name_matches(pat, s[i].name))
			return true;
	return false;
}

/* Functions of one module matching the description. */
static void provide_module(provide_ctx_t *c)
{
	const dtrace_elf_t *f = c->mod->file;
	const char *fun = c->pdp->fun;
	const dtrace_sym_t *syms;
	char msg[256];
	size_t i, n, nsyms;

	if (pid_host->elf->symbols(c->pv, f, &syms, &nsyms, msg,
				   sizeof(msg)) != 0)
		return;		/* a module without symbols has no probes */
	if (!is_empty(fun) && !has_glob(fun)) {
		const dtrace_sym_t *const *first;

		/* several functions of one name (static ones in different
		 * files): the first one gets the probes */
		n = pid_host->elf->sym_by_name(f, fun, &first);
		if (n > 0) {
			c->sym = preferred_alias(syms, first[0]);
			provide_function(c);
		} else if (c->strict && !is_empty(c->pdp->mod) &&
			   !has_glob(c->pdp->mod)) {
			/* a function the module named has not: DTrace's
			 * error (other modules of a glob may have it) */
			pid_error_tag(c->pv, "D_PROC_FUNC", "failed to lookup "
				      "'%s' in module '%s'", fun, c->pdp->mod);
			c->err = -ENOENT;
			c->reported = true;
		}
		return;
	}
	/* A glob: in address order, each function one of whose names
	 * matches, under its preferred name; of several functions of one
	 * name, the first. */
	for (i = 0; i < nsyms && c->err == 0; i += n) {
		const dtrace_sym_t *s = &syms[i];
		const dtrace_sym_t *const *same;

		n = alias_count(s, syms + nsyms);
		if (!alias_matches(fun, s, n))
			continue;
		if (pid_host->elf->sym_by_name(f, s->name, &same) > 1 &&
		    same[0] != s)
			continue;
		c->sym = s;
		provide_function(c);
	}
}

/* Create the probes of t that pdp matches.  With freshp, also return the
 * new probes (malloc'ed array, *nfreshp entries). */
int pid_provide_target(dtrace_provider_t *pv, pid_session_t *ps,
		       const dtrace_probedesc_t *pdp, const pid_target_t *t,
		       dtrace_probe_t ***freshp, int *nfreshp)
{
	provide_ctx_t c = { .pv = pv, .ps = ps, .pdp = pdp, .pid = t->pid,
			    .strict = literal_pid(pdp->prv) == t->pid };
	const dtrace_module_t *mods;
	int i, nmods = pid_host->proc->modules(t->proc, &mods);

	if (freshp != NULL &&
	    DTRACE_ARRAY_NEED(c.fresh, c.fresh_cap, 16) < 0)
		return -ENOMEM;
	snprintf(c.prv, sizeof(c.prv), "pid%d", (int)t->pid);
	for (i = 0; i < nmods && c.err == 0; i++) {
		const dtrace_module_t *m = &mods[i];

		if (!module_matches(pdp->mod, m->name, m->is_exe, m->path))
			continue;
		c.mod = m;
		c.sym = NULL;
		provide_module(&c);
	}
	if (freshp != NULL) {
		*freshp = c.fresh;
		*nfreshp = c.nfresh;
	}
	if (c.err != 0) {
		if (!c.reported)
			pid_host->report->error(pv,
				"failed to create probes in pid "
				"%d: %s",
				(int)t->pid, strerror(-c.err));
		return c.err;
	}
	return c.created;
}

static int provide_target(dtrace_provider_t *pv, pid_session_t *ps,
			  const dtrace_probedesc_t *pdp, const pid_target_t *t)
{
	return pid_provide_target(pv, ps, pdp, t, NULL, NULL);
}

/* "pid:/path/to/file:FUNCTION:NAME": the functions of a file named by its
 * path, without a process.  The probes are under the provider "pid" and
 * the file's name as module, and fire in every process that runs the file
 * (their uprobes and overlays are for pid 0). */
static int provide_path(dtrace_provider_t *pv, pid_session_t *ps,
			const dtrace_probedesc_t *pdp)
{
	provide_ctx_t c = { .pv = pv, .ps = ps, .pdp = pdp, .pid = 0,
			    .strict = true };
	char path[PATH_MAX], msg[256];
	dtrace_module_t m = { .path = path, .file_path = path };
	int err;

	/* named as a process's maps name it: the file, not a link to it */
	if (realpath(pdp->mod, path) == NULL) {
		err = -errno;
		pid_host->report->error(pv, "cannot open %s: %s", pdp->mod,
					strerror(errno));
		return err;
	}
	err = pid_host->elf->open(pv, path, &m.file, msg, sizeof(msg));
	if (err != 0) {
		pid_host->report->error(pv, "%s", msg);
		return err;
	}
	m.name = base_name(path);
	snprintf(c.prv, sizeof(c.prv), "pid");
	c.mod = &m;
	provide_module(&c);
	if (c.err != 0) {
		if (!c.reported)
			pid_host->report->error(pv,
				"failed to create probes in %s: "
				"%s",
				pdp->mod, strerror(-c.err));
		return c.err;
	}
	return c.created;
}

static int pid_provide(dtrace_provider_t *pv, void *data,
		       const dtrace_probedesc_t *pdp)
{
	pid_session_t *ps = data;
	pid_t pid = literal_pid(pdp->prv);
	pid_target_t *t;
	int i, n, err = 0, total = 0;

	if (pid != 0) {
		if ((t = pid_target_refresh(pv, ps, pid, &err)) == NULL)
			return err;
		return provide_target(pv, ps, pdp, t);
	}
	if (pdp->prv != NULL && strcmp(pdp->prv, "pid") == 0 &&
	    pdp->mod != NULL && pdp->mod[0] == '/' && !has_glob(pdp->mod))
		return provide_path(pv, ps, pdp);
	if (bad_literal_pid(pdp->prv)) {
		pid_error_tag(pv, "D_PROC_BADPID", "'%s' does not contain a "
			      "valid pid", pdp->prv);
		return -EINVAL;
	}
	if (!is_empty(pdp->prv) && !has_glob(pdp->prv))
		return 0;	/* another provider's name */
	/* A glob: only the processes already looked into, as they were. */
	for (i = 0; i < ps->ntargets; i++) {
		char prv[32];

		snprintf(prv, sizeof(prv), "pid%d", (int)ps->targets[i].pid);
		if (!name_matches(pdp->prv, prv))
			continue;
		if ((n = provide_target(pv, ps, pdp, &ps->targets[i])) < 0)
			return n;
		total += n;
	}
	return total;
}

/* ---- matching (see provider.h: probe_match) ------------------------------ */

const dtrace_sym_t *pid_names_at(const dtrace_sym_t *syms, size_t nsyms,
				 uint64_t addr)
{
	size_t lo = 0, hi = nsyms;

	while (lo < hi) {	/* the first entry >= addr */
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nsyms && syms[lo].addr == addr ? &syms[lo] : NULL;
}

/* Whether the description's function field designates pp's function,
 * named fun (its preferred name), by this or another of its names. */
static bool function_matches(dtrace_provider_t *pv, const char *pat,
			     const pid_probe_t *pp, const char *fun)
{
	const dtrace_sym_t *syms, *s;
	size_t nsyms;
	char msg[256];

	if (name_matches(pat, fun))
		return true;
	if (pp->file == NULL ||
	    pid_host->elf->symbols(pv, pp->file, &syms, &nsyms, msg,
				   sizeof(msg)) != 0 ||
	    (s = pid_names_at(syms, nsyms, pp->func_addr)) == NULL)
		return false;
	return alias_matches(pat, s, alias_count(s, syms + nsyms));
}

static int pid_probe_match(dtrace_provider_t *pv, void *data,
			   const dtrace_probe_t *prp,
			   const dtrace_probedesc_t *pdp)
{
	const pid_probe_t *pp = pid_host->probes->priv(prp);
	const char *prb = pid_host->probes->name(prp, DTRACE_FIELD_PRB);
	uint64_t off;

	if (!name_matches(pdp->prv,
			  pid_host->probes->name(prp, DTRACE_FIELD_PRV)) ||
	    !function_matches(pv, pdp->fun, pp,
			      pid_host->probes->name(prp, DTRACE_FIELD_FUN)))
		return 0;
	if (!module_matches(pdp->mod,
			    pid_host->probes->name(prp, DTRACE_FIELD_MOD),
			    strcmp(pid_host->probes->name(prp,
							  DTRACE_FIELD_MOD),
				   "a.out") == 0,
			    pp->modpath))
		return 0;
	if (pp->site == PID_SITE_OFFSET && !is_empty(pdp->prb) &&
	    !has_glob(pdp->prb) && parse_offset(pdp->prb, &off))
		return off == pp->off;
	return name_matches(pdp->prb, prb);
}

/* ---- session ------------------------------------------------------------ */

static void *pid_attach_session(dtrace_provider_t *pv)
{
	pid_session_t *ps = calloc(1, sizeof(*ps));

	if (ps == NULL) {
		pid_host->report->error(pv, "pid provider: out of memory");
		return NULL;
	}
	pid_insn_init(ps);
	return ps;
}

static int pid_start(dtrace_provider_t *pv, void *data)
{
	pid_report_skipped(pv, data);
	return pid_late_start(pv, data);
}

static void pid_free_priv(void *data, void *priv)
{
	probe_free(priv);
}

static void pid_detach_session(dtrace_provider_t *pv, void *data)
{
	pid_session_t *ps = data;
	int i;

	if (ps == NULL)
		return;
	pid_report_skipped(pv, ps);
	for (i = 0; i < ps->ntargets; i++) {
		pid_host->proc->release(ps->targets[i].proc);
		pid_maps_free(&ps->targets[i].maps);
	}
	free(ps->targets);
	free(ps);
}

/* pid1234: the provider names are pid and a process id; pid alone for
 * the probes of a file named by its path. */
static const char *const pid_names[] = { "pid[0-9]*", "pid", NULL };

static const dtrace_option_t pid_options[] = {
	{ "nop5", "refuse (default): a probe on a 5-byte nop is refused "
		  "where the kernel turns it into a call that a child the "
		  "process forks would crash on; place: placed all the same, "
		  "with a warning (for programs that do not fork)" },
	{ "entry", "auto (default): the entry of a function that begins "
		   "with endbr64 (built with -fcf-protection) is probed on "
		   "the instruction after it, where that is safe, and fires "
		   "as at the function's address; classic: always on the "
		   "function's first instruction" },
	{ NULL, NULL },
};

/* -x pid.NAME=VALUE for an option of two values, no and yes: *yesp says
 * which VALUE is.  0, or -EINVAL after an error naming both. */
static int two_way_option(dtrace_provider_t *pv, const char *name,
			  const char *value, const char *no, const char *yes,
			  bool *yesp)
{
	if (value != NULL && (strcmp(value, no) == 0 ||
			      strcmp(value, yes) == 0)) {
		*yesp = strcmp(value, yes) == 0;
		return 0;
	}
	pid_host->report->error(pv, "pid: -x pid.%s=%s: expected %s or %s",
				name, value ? value : "", no, yes);
	return -EINVAL;
}

static int pid_set_option(dtrace_provider_t *pv, void *data,
			  const char *name, const char *value)
{
	pid_session_t *ps = data;

	if (strcmp(name, "entry") == 0)
		return two_way_option(pv, name, value, "auto", "classic",
				      &ps->entry_classic);
	return two_way_option(pv, name, value, "refuse", "place",
			      &ps->nop5_place);
}

static const dtrace_provider_ops_t pid_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "pid",
	.names = pid_names,
	.attach_session = pid_attach_session,
	.provide = pid_provide,
	.probe_args = pid_probe_args,
	.enable = pid_enable,
	.trampoline = pid_trampoline,
	.start = pid_start,
	.free_priv = pid_free_priv,
	.detach_session = pid_detach_session,
	.poll = pid_poll,
	.notice_process = pid_notice_process,
	.probe_match = pid_probe_match,
	.options = pid_options,
	.set_option = pid_set_option,
};

DTRACE_PROVIDER(pid_ops, pid_host)
