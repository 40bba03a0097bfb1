/* SPDX-License-Identifier: MIT */
/*
 * dt_provider.c: provider plugins and the host interface they call.
 *
 * Plugins are shared objects found, in this order, in the directories of
 * -x plugindir=DIR (dtp->plugin_dirs), of $DTRACE_PLUGIN_PATH (colon
 * separated), in plugins/ beside the dtrace executable, and in the
 * installed plugin directory.  A plugin name already
 * loaded from an earlier directory is not loaded again, so a test build can
 * shadow the installed plugins.  A plugin built for another interface
 * version is refused with a message and the others are loaded.
 *
 * dlopen() runs a plugin's constructors with all of dtrace's privilege
 * before anything can be asked of it, so a file is opened only when
 * nobody but root, the user running dtrace or the owner of its executable
 * could have put it there or changed it, it and every directory above it
 * (dt_trust.c); else a message names the file, its owner and why.  In a process with more
 * privilege than its user (a setuid dtrace, or one given file
 * capabilities: AT_SECURE) only root's files are trusted, and the
 * directories the user names, -x plugindir and DTRACE_PLUGIN_PATH, are
 * ignored with a message.
 *
 * Every operation of a plugin, its constructors and init function too,
 * runs between dt_plugin_enter() and dt_plugin_leave() (dt_plugcall.c):
 * should it crash dtrace, the last line names the plugin's file and the
 * operation.
 *
 * A plugin's table is checked before anything else is asked of it: its
 * major version must be this engine's (any minor version loads: the fields
 * past its size read as NULL), its required operations present, and its
 * provider names its own.  Each refusal is a warning naming the file and
 * the reason; dtrace goes on with the other plugins.
 *
 * The host table dispatches to the engine's subsystems.  Each call carries
 * the plugin's provider handle, so the engine knows whose probe, map or
 * uprobe it makes and holds each plugin to its own names: the provider
 * names it declared that no other plugin serves, and the map names
 * prefixed with its own.  dtrace:::BEGIN, END and ERROR are the engine's
 * (ids 1 to 3, created before any plugin is asked); the plugin that
 * declares the provider name dtrace takes over BEGIN and END when it
 * creates them.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <stddef.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "dt_impl.h"
#include "dt_as.h"
#include "dt_bpf.h"
#include "dt_exec.h"
#include "dt_hostsvc.h"
#include "dt_program.h"
#include "dt_progdesc.h"
#include "dt_kevent.h"
#include "dt_plugcall.h"
#include "dt_trust.h"

#ifndef DT_PLUGINDIR
#define DT_PLUGINDIR "/usr/local/lib/dtrace/plugins"
#endif

static const char *path_base(const char *path)
{
	const char *base = strrchr(path, '/');

	return base ? base + 1 : path;
}

static bool provider_loaded(dtrace_hdl_t *dtp, const char *file)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next)
		if (strcmp(path_base(pv->path), file) == 0)
			return true;
	return false;
}

/* Append so that plugins keep the order in which they were found. */
static void provider_append(dtrace_hdl_t *dtp, dt_provider_t *pv)
{
	dt_provider_t **pp = &dtp->providers;

	while (*pp)
		pp = &(*pp)->next;
	*pp = pv;
}

/* The provider names pv declares: ops->names, or its name alone. */
static const char *const *provider_names(const dt_provider_t *pv)
{
	return pv->ops->names ? pv->ops->names : &pv->ops->name;
}

/* Whether pv declares the provider name "dtrace": it serves BEGIN and
 * END (see Names in provider.h). */
static bool serves_dtrace(const dt_provider_t *pv)
{
	for (const char *const *n = provider_names(pv); *n; n++)
		if (strcmp(*n, "dtrace") == 0)
			return true;
	return false;
}

/* The plugin loaded before pv that declares the literal provider name
 * name, or NULL. */
static dt_provider_t *literal_owner(dtrace_hdl_t *dtp, const char *name,
				    const dt_provider_t *pv)
{
	for (dt_provider_t *o = dtp->providers; o; o = o->next) {
		if (o == pv)
			continue;
		for (const char *const *n = provider_names(o); *n; n++)
			if (!dt_glob_has_meta(*n) && strcmp(*n, name) == 0)
				return o;
	}
	return NULL;
}

/* Whether the plugin's declared names and its name leave the others'
 * alone; else a warning says why it is not loaded. */
static bool names_acceptable(dtrace_hdl_t *dtp, const dt_provider_t *pv)
{
	for (dt_provider_t *o = dtp->providers; o; o = o->next) {
		if (strcmp(o->ops->name, pv->ops->name) == 0) {
			dt_warn(dtp, "plugin %s has the name %s, as plugin %s "
				"has: not loaded", pv->path, pv->ops->name,
				o->path);
			return false;
		}
	}
	for (const char *const *n = provider_names(pv); *n; n++) {
		dt_provider_t *o = dt_glob_has_meta(*n) ? NULL :
				   literal_owner(dtp, *n, pv);
		if (o != NULL) {
			dt_warn(dtp, "plugin %s declares provider %s, which "
				"plugin %s serves: not loaded", pv->path, *n,
				o->path);
			return false;
		}
	}
	return true;
}

/* The version and size of the plugin's table; a warning says why it is
 * refused. */
static bool version_acceptable(dtrace_hdl_t *dtp, const char *path,
			       const dtrace_provider_ops_t *ops)
{
	if (ops->major != DTRACE_PROVIDER_MAJOR) {
		/* Tables before 3.0 had one version number and no minor. */
		if (ops->major < 3)
			dt_warn(dtp, "plugin %s was built for provider "
				"interface version %d, this dtrace has version "
				"%d.%d: not loaded", path, ops->major,
				DTRACE_PROVIDER_MAJOR, DTRACE_PROVIDER_MINOR);
		else
			dt_warn(dtp, "plugin %s was built for provider "
				"interface version %d.%d, this dtrace has "
				"version %d.%d: not loaded", path, ops->major,
				ops->minor, DTRACE_PROVIDER_MAJOR,
				DTRACE_PROVIDER_MINOR);
		return false;
	}
	if (ops->size < offsetof(dtrace_provider_ops_t, options)) {
		dt_warn(dtp, "plugin %s: its table of operations is %zu bytes, "
			"less than version %d.0's %zu: not loaded", path,
			ops->size, DTRACE_PROVIDER_MAJOR,
			offsetof(dtrace_provider_ops_t, options));
		return false;
	}
	return true;
}

/* The first operation a plugin must have and lacks, or NULL. */
static const char *missing_operation(const dtrace_provider_ops_t *ops)
{
	if (ops->name == NULL || ops->name[0] == '\0')
		return "name";
	if (ops->provide == NULL)
		return "provide";
	if (ops->enable == NULL)
		return "enable";
	if (ops->trampoline == NULL)
		return "trampoline";
	if (ops->options != NULL && ops->set_option == NULL)
		return "set_option (it declares options)";
	return NULL;
}

/* The plugin's table as this engine knows it: the fields past the size it
 * was built with read as NULL. */
static void ops_copy(dt_provider_t *pv, const dtrace_provider_ops_t *ops)
{
	size_t n = ops->size < sizeof(pv->opsbuf) ? ops->size
						  : sizeof(pv->opsbuf);

	memset(&pv->opsbuf, 0, sizeof(pv->opsbuf));
	memcpy(&pv->opsbuf, ops, n);
	pv->ops = &pv->opsbuf;
}

/* The plugin's table of operations, or NULL after a warning. */
static const dtrace_provider_ops_t *plugin_init(dtrace_hdl_t *dtp,
						const char *path, void *dlh)
{
	dtrace_provider_init_f init =
		(dtrace_provider_init_f)dlsym(dlh, DTRACE_PROVIDER_INIT);
	if (init == NULL) {
		dt_warn(dtp, "plugin %s has no %s (a C++ plugin must declare "
			"it extern \"C\"): not loaded", path,
			DTRACE_PROVIDER_INIT);
		return NULL;
	}
	dt_plugin_call_t saved = dt_plugcall_watch(path,
						   DTRACE_PROVIDER_INIT "()");
	const dtrace_provider_ops_t *ops = init(&dt_host);
	dt_plugcall_unwatch(saved);
	if (ops == NULL) {
		dt_warn(dtp, "plugin %s refused to serve this dtrace (provider "
			"interface version %d.%d): not loaded", path,
			DTRACE_PROVIDER_MAJOR, DTRACE_PROVIDER_MINOR);
		return NULL;
	}
	return version_acceptable(dtp, path, ops) ? ops : NULL;
}

static void provider_free(dt_provider_t *pv)
{
	free(pv->last_prv);
	free(pv->descs);
	free(pv->path);
	free(pv);
}

/* dlopen() the plugin found at path, once dt_trust_file() has said that
 * nobody but a trusted user could have put it there;
 * NULL after a warning naming the file and why. */
static void *plugin_open(dtrace_hdl_t *dtp, const char *path)
{
	char real[PATH_MAX], why[PATH_MAX + 256];

	if (!dt_trust_file(path, real, sizeof(real), why, sizeof(why))) {
		dt_warn(dtp, "plugin %s: %s: not loaded", path, why);
		return NULL;
	}
	dt_plugin_call_t saved = dt_plugcall_watch(path, "its constructors");
	void *dlh = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	dt_plugcall_unwatch(saved);
	if (dlh == NULL)
		dt_warn(dtp, "failed to load plugin %s: %s", path, dlerror());
	return dlh;
}

static int provider_load(dtrace_hdl_t *dtp, const char *path)
{
	void *dlh = plugin_open(dtp, path);
	if (dlh == NULL)
		return -1;
	const dtrace_provider_ops_t *ops = plugin_init(dtp, path, dlh);
	if (ops == NULL) {
		dlclose(dlh);
		return -1;
	}

	dt_provider_t *pv = dt_zalloc(sizeof(*pv));
	ops_copy(pv, ops);
	pv->dtp = dtp;
	pv->path = dt_strdup(path);
	pv->dlh = dlh;
	const char *missing = missing_operation(pv->ops);
	if (missing != NULL)
		dt_warn(dtp, "plugin %s lacks the required operation %s: not "
			"loaded", path, missing);
	if (missing != NULL || !names_acceptable(dtp, pv)) {
		provider_free(pv);
		dlclose(dlh);
		return -1;
	}
	if (pv->ops->attach_session != NULL) {
		dt_plugin_call_t call = dt_plugin_enter(dtp, pv,
							"attach_session()");
		pv->data = pv->ops->attach_session(pv);
		dt_plugin_leave(dtp, call);
		if (pv->data == NULL) {
			dt_warn(dtp, "plugin %s failed to start: %s: not loaded",
				path, dtp->errmsg[0] ? dtp->errmsg
						     : "no reason given");
			dtp->errmsg[0] = '\0';
			provider_free(pv);
			dlclose(dlh);
			return -1;
		}
	}
	provider_append(dtp, pv);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Load every *.so of dir not loaded yet, in name order.  A directory the
 * user named (named) that is not there is said so: a typo would only show
 * later, as a description that matches no probe. */
static void provider_load_dir(dtrace_hdl_t *dtp, const char *dir, bool named)
{
	char why[PATH_MAX + 256];
	char **names = NULL;
	size_t n = 0;

	if (!dt_trust_dir(dir, why, sizeof(why))) {
		if (why[0] != '\0')
			dt_warn(dtp, "plugin directory %s: %s: its plugins are "
				"not loaded", dir, why);
		else if (named)
			dt_warn(dtp, "plugin directory %s: %s", dir,
				strerror(errno));
		return;
	}
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		size_t len = strlen(de->d_name);
		if (len < 4 || strcmp(de->d_name + len - 3, ".so") != 0)
			continue;
		names = dt_realloc(names, (n + 1) * sizeof(*names));
		names[n++] = dt_strdup(de->d_name);
	}
	closedir(d);
	if (n > 0)	/* an empty directory: names is NULL */
		qsort(names, n, sizeof(*names), cmp_names);

	for (size_t i = 0; i < n; i++) {
		if (!provider_loaded(dtp, names[i])) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
			provider_load(dtp, path);
		}
		free(names[i]);
	}
	free(names);
}

/*
 * The engine's own probes: dtrace:::BEGIN, END and ERROR get the ids 1, 2
 * and 3 before any plugin is asked for probes.  ERROR is the engine's (a
 * faulting clause runs the ERROR clauses itself); BEGIN and END wait for
 * the plugin that declares the provider name dtrace (dtrace.so), which
 * takes them over when it creates them.
 */
static int engine_provide(dtrace_provider_t *pv, void *data,
			  const dtrace_probedesc_t *pdp)
{
	return 0;
}

static int engine_enable(dtrace_provider_t *pv, void *data,
			 dtrace_probe_t *prp)
{
	if (prp->id == DT_PRID_ERROR)
		return 0;
	dt_set_error(pv->dtp, "no plugin serves dtrace:::%s (none that "
		     "declares the provider dtrace was loaded)", prp->prb);
	return -ENOENT;
}

static int engine_trampoline(dtrace_provider_t *pv, void *data,
			     dtrace_emitter_t *em,
			     const dtrace_trampoline_t *tr)
{
	return 0;
}

/*
 * ERROR's arguments, as DTrace documents them: arg1 the EPID of the
 * enabled probe that faulted, arg2 the index of the action (statement) that
 * faulted, arg3 the offset in that action's code (here: the BPF instruction
 * index) or -1, arg4 the fault type (DTRACEFLT_*), arg5 a value particular
 * to the fault (the address for bad address and alignment faults).  arg0
 * is not defined and reads as 0.  BEGIN and END have no arguments.
 */
static int engine_probe_args(dtrace_provider_t *pv, void *data,
			     const dtrace_probe_t *prp, dtrace_argdesc_t *args)
{
	static const char *const error_types[] = {
		"uint64_t",	/* arg0: undefined, 0 */
		"uint32_t",	/* arg1: EPID */
		"uint32_t",	/* arg2: action index */
		"int32_t",	/* arg3: BPF pc or -1 */
		"uint32_t",	/* arg4: fault type */
		"uint64_t",	/* arg5: fault value (address) */
	};
	int n = sizeof(error_types) / sizeof(error_types[0]);

	if (prp->id != DT_PRID_ERROR)
		return 0;
	for (int i = 0; i < n; i++) {
		args[i].native = error_types[i];
		args[i].xlate = NULL;
		args[i].mapping = i;
	}
	return n;
}

static const char *const engine_names[] = { "dtrace", NULL };

static const dtrace_provider_ops_t engine_ops = {
	DTRACE_PROVIDER_OPS_INIT,
	.name = "dtrace",
	.names = engine_names,
	.provide = engine_provide,
	.probe_args = engine_probe_args,
	.enable = engine_enable,
	.trampoline = engine_trampoline,
};

static void engine_probes_create(dtrace_hdl_t *dtp)
{
	static const char *const names[] = { "BEGIN", "END", "ERROR" };
	dt_provider_t *pv = dt_zalloc(sizeof(*pv));

	ops_copy(pv, &engine_ops);
	pv->dtp = dtp;
	pv->path = dt_strdup("dtrace itself");
	dtp->engine_provider = pv;
	for (int i = 0; i < DT_PRID_RESERVED; i++)
		dt_probe_insert(dtp, pv, "dtrace", "", "", names[i], NULL);
}

/* Options given before the plugins were loaded. */
typedef struct dt_plugin_opt {
	char *name, *value;
	struct dt_plugin_opt *next;
} dt_plugin_opt_t;

static int plugin_opts_apply(dtrace_hdl_t *dtp)
{
	int rc = 0;

	while (dtp->plugin_opts != NULL) {
		dt_plugin_opt_t *o = dtp->plugin_opts;
		dtp->plugin_opts = o->next;
		if (rc == 0)
			rc = dt_provider_option(dtp, o->name, o->value);
		free(o->name);
		free(o->value);
		free(o);
	}
	return rc;
}

/* The directories the user names, -x plugindir and $DTRACE_PLUGIN_PATH;
 * ignored, with a message, in a process with more privilege than its
 * user, who would otherwise choose the code it runs. */
static void provider_load_user_dirs(dtrace_hdl_t *dtp)
{
	static const char why[] = "dtrace runs with more privilege than its "
				  "user (setuid or file capabilities)";
	bool secure = dt_trust_secure_exec();
	const char *env = getenv("DTRACE_PLUGIN_PATH");

	for (const char **d = dtp->plugin_dirs; d && *d; d++) {
		if (secure)
			dt_warn(dtp, "-x plugindir=%s ignored: %s", *d, why);
		else
			provider_load_dir(dtp, *d, true);
	}
	if (env != NULL && secure) {
		dt_warn(dtp, "DTRACE_PLUGIN_PATH ignored: %s", why);
	} else if (env != NULL) {
		char *copy = dt_strdup(env), *save = NULL;
		for (char *dir = strtok_r(copy, ":", &save); dir;
		     dir = strtok_r(NULL, ":", &save))
			provider_load_dir(dtp, dir, true);
		free(copy);
	}
}

int dt_provider_load_all(dtrace_hdl_t *dtp)
{
	dt_plugcall_install();
	engine_probes_create(dtp);
	provider_load_user_dirs(dtp);
	/* Beside the command (build/dtrace and build/plugins/), so that a
	 * build runs from its tree without installing.  Kept under secure
	 * execution: only root's directories pass dt_trust_dir() there, and
	 * a user cannot put a privileged dtrace into one of theirs (a copy
	 * loses its capabilities and setuid bit; a hard link to a file they
	 * cannot write is refused by fs.protected_hardlinks, and if made, sits
	 * in a directory of theirs, which is refused). */
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 16);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL) {
			strcpy(slash + 1, "plugins");
			provider_load_dir(dtp, exe, false);
		}
	}
	provider_load_dir(dtp, DT_PLUGINDIR, false);

	if (dtp->providers == NULL) {
		dt_set_error(dtp, "no provider plugins found (looked in "
			     "DTRACE_PLUGIN_PATH and %s)", DT_PLUGINDIR);
		return -1;
	}
	return plugin_opts_apply(dtp);
}

static dt_provider_t *provider_by_name(dtrace_hdl_t *dtp, const char *name,
				       size_t len)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next)
		if (strlen(pv->ops->name) == len &&
		    strncmp(pv->ops->name, name, len) == 0)
			return pv;
	return NULL;
}

static bool option_declared(const dt_provider_t *pv, const char *opt)
{
	for (const dtrace_option_t *o = pv->ops->options; o && o->name; o++)
		if (strcmp(o->name, opt) == 0)
			return true;
	return false;
}

/* The plugin option that name spells without its dot, PLUGINoption
 * (fbtmode for fbt.mode), as "PLUGIN.option" in full[], or NULL. */
static const char *option_undotted(dtrace_hdl_t *dtp, const char *name,
				   char *full, size_t len)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next) {
		size_t n = strlen(pv->ops->name);

		if (strncmp(name, pv->ops->name, n) != 0 ||
		    !option_declared(pv, name + n))
			continue;
		snprintf(full, len, "%s.%s", pv->ops->name, name + n);
		return full;
	}
	return NULL;
}

int dt_provider_option(dtrace_hdl_t *dtp, const char *name, const char *val)
{
	const char *dot = strchr(name, '.');
	char full[256];

	if (dtp->providers != NULL && dot == NULL) {
		if (option_undotted(dtp, name, full, sizeof(full)) == NULL) {
			dt_set_error(dtp, "failed to set option -x %s: Invalid "
				     "option name", name);
			return -1;
		}
		name = full;
		dot = strchr(name, '.');
	}
	if (dtp->providers == NULL) {
		dt_plugin_opt_t *o = dt_zalloc(sizeof(*o)), **pp;
		o->name = dt_strdup(name);
		o->value = val ? dt_strdup(val) : NULL;
		for (pp = &dtp->plugin_opts; *pp; pp = &(*pp)->next)
			;
		*pp = o;
		return 0;
	}
	dt_provider_t *pv = provider_by_name(dtp, name, (size_t)(dot - name));
	if (pv == NULL) {
		dt_set_error(dtp, "failed to set option -x %s: no plugin named "
			     "%.*s is loaded", name, (int)(dot - name), name);
		return -1;
	}
	if (!option_declared(pv, dot + 1)) {
		dt_set_error(dtp, "failed to set option -x %s: plugin %s has "
			     "no option %s", name, pv->path, dot + 1);
		return -1;
	}
	dt_plugin_call_t call = dt_plugin_enter(dtp, pv, "set_option()");
	int rc = pv->ops->set_option(pv, pv->data, dot + 1, val);
	dt_plugin_leave(dtp, call);
	if (rc < 0 && dtp->errmsg[0] == '\0')
		dt_set_error(dtp, "failed to set option -x %s: plugin %s "
			     "refused it: %s", name, pv->path, strerror(-rc));
	return rc < 0 ? -1 : 0;
}

void dt_provider_options_list(dtrace_hdl_t *dtp, FILE *fp)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next) {
		for (const dtrace_option_t *o = pv->ops->options; o && o->name;
		     o++) {
			char full[256];
			snprintf(full, sizeof(full), "%s.%s", pv->ops->name,
				 o->name);
			fprintf(fp, "  %-24s %s\n", full,
				o->help ? o->help : "");
		}
	}
}

void dt_provider_fini(dtrace_hdl_t *dtp)
{
	dt_provider_t *pv = dtp->providers;

	dtp->providers = NULL;
	while (pv != NULL) {
		dt_provider_t *next = pv->next;
		if (pv->ops->detach_session) {
			dt_plugin_call_t call = dt_plugin_enter(dtp, pv,
							"detach_session()");
			pv->ops->detach_session(pv, pv->data);
			dt_plugin_leave(dtp, call);
		}
		/* Plugins stay mapped: probes' private data may point into
		 * them until the session is gone, and exit is near. */
		provider_free(pv);
		pv = next;
	}
	if (dtp->engine_provider != NULL)
		provider_free(dtp->engine_provider);
	dtp->engine_provider = NULL;
	dt_hostsvc_fini(dtp);
	dt_plugcall_remove();
}

/* The host tables.  Every function that acts for a plugin is given the
 * provider handle of the plugin that calls it, and passes it on: no
 * engine function asks whose operation runs. */

static void host_error(dtrace_provider_t *pv, const char *fmt, ...)
{
	dtrace_hdl_t *dtp = pv->dtp;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dtp->errmsg, sizeof(dtp->errmsg), fmt, ap);
	va_end(ap);
}

static void host_error_tag(dtrace_provider_t *pv, const char *tag,
			   const char *fmt, ...)
{
	dtrace_hdl_t *dtp = pv->dtp;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dtp->errmsg, sizeof(dtp->errmsg), fmt, ap);
	va_end(ap);
	dtp->desc_errtag = dt_errtag_by_name(tag);
}

static void host_warn(dtrace_provider_t *pv, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dt_warn(pv->dtp, "%s", buf);
}

static void host_debug(dtrace_provider_t *pv, const char *fmt, ...)
{
	va_list ap;

	if (!pv->dtp->opt.debug)
		return;
	fprintf(stderr, "dtrace DEBUG: %s: ", pv->ops->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int host_uprobe_nop5(dtrace_provider_t *pv)
{
	_Static_assert(DTRACE_NOP5_TRAP == DT_NOP5_TRAP &&
		       DTRACE_NOP5_OPTIMIZED == DT_NOP5_OPTIMIZED &&
		       DTRACE_NOP5_FORK_UNSAFE == DT_NOP5_FORK_UNSAFE,
		       "the door's nop5 answers are the engine's");
	return dt_bpf_uprobe_nop5(pv->dtp);
}

/* Whether pv may take over the engine's placeholder p (BEGIN, END). */
static bool may_claim(const dt_provider_t *pv, const dtrace_probe_t *p)
{
	return p->provider == pv->dtp->engine_provider &&
	       p->id != DT_PRID_ERROR && serves_dtrace(pv);
}

static bool declares(const dt_provider_t *pv, const char *prv)
{
	for (const char *const *n = provider_names(pv); *n; n++)
		if (dt_glob_match(*n, prv))
			return true;
	return false;
}

/* The provider that already has probes named prv, other than pv. */
static dt_provider_t *prv_owner(dtrace_hdl_t *dtp, const dt_provider_t *pv,
				const char *prv)
{
	for (uint32_t id = 1; id <= dtp->nprobes; id++) {
		dtrace_probe_t *p = dtp->probes[id];
		if (p != NULL && p->provider != pv && strcmp(p->prv, prv) == 0)
			return p->provider;
	}
	return NULL;
}

/* Whether pv may create a new probe of provider prv; else a warning says
 * why not.  A plugin keeps to the names it declared, and to names no
 * other plugin declared literally or has probes under. */
static bool may_create(dt_provider_t *pv, const char *prv)
{
	dtrace_hdl_t *dtp = pv->dtp;
	dt_provider_t *o = NULL;
	const char *why = NULL;

	if (pv->last_prv != NULL && strcmp(pv->last_prv, prv) == 0)
		return true;
	if (!declares(pv, prv))
		why = "it does not declare that provider name";
	else if ((o = literal_owner(dtp, prv, pv)) != NULL ||
		 (o = prv_owner(dtp, pv, prv)) != NULL)
		why = "another plugin serves it";
	if (why != NULL) {
		dt_warn(dtp, "plugin %s may not create probes of provider %s: "
			"%s%s%s", pv->path, prv, why, o ? ", " : "",
			o ? o->path : "");
		return false;
	}
	free(pv->last_prv);
	pv->last_prv = dt_strdup(prv);
	return true;
}

static dtrace_probe_t *host_probe_insert(dtrace_provider_t *pv,
					 const char *prv, const char *mod,
					 const char *fun, const char *prb,
					 void *priv)
{
	dtrace_hdl_t *dtp = pv->dtp;

	if (prv == NULL || mod == NULL || fun == NULL || prb == NULL) {
		dt_warn(dtp, "plugin %s created a probe without a name",
			pv->path);
		errno = EINVAL;
		return NULL;
	}
	dtrace_probe_t *p = dt_probe_lookup(dtp, prv, mod, fun, prb);
	if (p != NULL && p->provider != pv) {
		if (may_claim(pv, p)) {
			p->provider = pv;
			p->priv = priv;
			return p;
		}
		dt_warn(dtp, "plugin %s may not create probe %s:%s:%s:%s: it "
			"belongs to %s", pv->path, prv, mod, fun, prb,
			p->provider->path);
		errno = EPERM;
		return NULL;
	}
	if (p == NULL && !may_create(pv, prv)) {
		errno = EPERM;
		return NULL;
	}
	bool is_new = p == NULL;
	p = dt_probe_insert(dtp, pv, prv, mod, fun, prb, priv);
	/* A probe that appears while tracing gets the clauses whose
	 * descriptions match it; its provider enables it from poll(). */
	if (is_new && dtp->tracing) {
		dt_pd_clauses_of(dtp, p, &p->clauses);
		p->enabled = !dt_cs_empty(&p->clauses);
	}
	return p;
}

static int host_probe_of_process(dtrace_provider_t *pv, dtrace_probe_t *prp,
				 pid_t pid)
{
	if (prp == NULL || prp->provider != pv || pid <= 0)
		return -EPERM;
	dt_probe_of_process(pv->dtp, prp, pid);
	return 0;
}

static dtrace_probe_t *host_probe_lookup(dtrace_provider_t *pv,
					 const char *prv, const char *mod,
					 const char *fun, const char *prb)
{
	return dt_probe_lookup(pv->dtp, prv, mod, fun, prb);
}

static int host_probe_attr(dtrace_provider_t *pv, dtrace_probe_t *prp,
			   unsigned attr)
{
	if (prp->provider != pv) {
		dt_warn(pv->dtp, "plugin %s may not set attributes of probe "
			"%s:%s:%s:%s", pv->path, prp->prv, prp->mod, prp->fun,
			prp->prb);
		return -EPERM;
	}
	prp->attr |= attr;
	pv->templates |= (attr & DTRACE_PROBE_TEMPLATE) != 0;
	return 0;
}

static int host_probe_function(dtrace_provider_t *pv, dtrace_probe_t *prp,
			       const dtrace_elf_t *f)
{
	if (host_probe_attr(pv, prp, 0) < 0)
		return -EPERM;
	prp->func_file = f != NULL ? dt_host_elf_path(f) : NULL;
	return 0;
}

static void *host_probe_priv(const dtrace_probe_t *prp)
{
	return prp->priv;
}

static const char *host_probe_name(const dtrace_probe_t *prp, int field)
{
	switch (field) {
	case DTRACE_FIELD_PRV: return prp->prv;
	case DTRACE_FIELD_MOD: return prp->mod;
	case DTRACE_FIELD_FUN: return prp->fun;
	case DTRACE_FIELD_PRB: return prp->prb;
	default: return NULL;
	}
}

static int host_glob_match(const char *pattern, const char *s)
{
	return dt_glob_match(pattern, s);
}

static int64_t host_uprobe(dtrace_provider_t *pv, const dtrace_uprobe_t *up)
{
	return dt_prog_uprobe(pv->dtp, pv, up);
}

static int64_t host_perf_probe(dtrace_provider_t *pv,
			       const dtrace_perfprobe_t *pp)
{
	return dt_prog_perf_probe(pv->dtp, pv, pp);
}

static int host_overlay(dtrace_provider_t *pv, int64_t cookie, pid_t pid,
			dtrace_probe_t *prp)
{
	if (prp->provider != pv) {
		dt_warn(pv->dtp, "plugin %s may not overlay probe %s:%s:%s:%s "
			"of %s", pv->path, prp->prv, prp->mod, prp->fun,
			prp->prb, prp->provider->path);
		return -EPERM;
	}
	return dt_prog_overlay(pv->dtp, cookie, pid, prp);
}

/* A plugin's map names are its own: "NAME.map" in the session. */
static dtrace_map_t *host_map_create(dtrace_provider_t *pv, const char *name,
				     enum bpf_map_type type, uint32_t ksize,
				     uint32_t vsize, uint32_t n)
{
	char full[256];

	snprintf(full, sizeof(full), "%s.%s", pv->ops->name, name);
	return dt_bpf_map(pv->dtp, full, type, ksize, vsize, n);
}

static dtrace_map_t *host_map_pinned(dtrace_provider_t *pv, const char *path)
{
	return dt_bpf_map_pinned(pv->dtp, path);
}

static int host_map_fd(const dtrace_map_t *map)
{
	return map->fd;
}

static void host_cold(dtrace_emitter_t *em, int on)
{
	dt_as_cold(em, on != 0);
}

static int host_watch_exec(dtrace_provider_t *pv)
{
	return dt_exec_watch(pv->dtp, pv);
}

static int host_gate_exec(dtrace_provider_t *pv)
{
	/* It covers processes that do not exist yet: its programs make room
	 * for their probes (dt_instance.c), even if its templates come only
	 * once tracing runs (-Z). */
	pv->templates = true;
	return dt_exec_gate(pv->dtp, pv);
}

static int host_provide_again(dtrace_provider_t *pv)
{
	dtrace_hdl_t *dtp = pv->dtp;

	if (!dtp->tracing) {
		dt_warn(dtp, "plugin %s called provide_again() before tracing "
			"started", pv->path);
		return -EINVAL;
	}
	return dt_prog_provide_again(dtp, pv) < 0 ? -EIO : 0;
}

static const dtrace_probedesc_t *host_probe_description(dtrace_provider_t *pv,
							 size_t i)
{
	const dtrace_probedesc_t *const *descs;
	size_t n = dt_provider_descs(pv->dtp, pv, &descs);

	return i < n ? descs[i] : NULL;
}

static int host_fire(dtrace_provider_t *pv, int64_t cookie)
{
	return dt_prog_fire(pv->dtp, cookie);
}

/* Tracepoints (their files under tracefs: dt_bpf_tracefs_open()). */
/* A category or event name: letters, digits and '_' only, so that it
 * names one directory of tracefs. */
static bool tp_name_ok(const char *s)
{
	if (s == NULL || *s == '\0')
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* Open tracefs's file of the tracepoint category:name (id, format), or
 * NULL after a warning naming the plugin. */
static FILE *tp_open(dt_provider_t *pv, const char *cat, const char *name,
		     const char *file)
{
	if (!tp_name_ok(cat) || !tp_name_ok(name)) {
		dt_warn(pv->dtp, "plugin %s asked for the tracepoint %s:%s: "
			"not a tracepoint name", pv->path, cat ? cat : "",
			name ? name : "");
		return NULL;
	}
	FILE *fp = dt_bpf_tracefs_open(cat, name, file);
	if (fp != NULL)
		return fp;
	dt_warn(pv->dtp, "plugin %s asked for the tracepoint %s:%s, which this "
		"kernel does not have (or tracefs is not mounted)", pv->path,
		cat, name);
	return NULL;
}

static int64_t tracepoint_probe(dt_provider_t *pv, const dtrace_event_t *ev)
{
	FILE *fp = tp_open(pv, ev->category, ev->name, "id");
	long id = -1;

	if (fp == NULL)
		return -ENOENT;
	if (fscanf(fp, "%ld", &id) != 1)
		id = -1;
	fclose(fp);
	if (id < 0) {
		dt_warn(pv->dtp, "plugin %s: cannot read the id of tracepoint "
			"%s:%s", pv->path, ev->category, ev->name);
		return -EINVAL;
	}
	/* One perf event, on CPU 0: the kernel runs a tracepoint's programs
	 * wherever it fires, and refuses one program twice on it. */
	dtrace_perfprobe_t pp = {
		.type = PERF_TYPE_TRACEPOINT, .config = (uint64_t)id,
		.period = 1, .cpu = 0, .kind = ev->kind, .flags = ev->flags,
	};
	return dt_prog_perf_probe(pv->dtp, pv, &pp);
}

static int64_t host_event(dtrace_provider_t *pv, const dtrace_event_t *ev)
{
	static const char *const names[] = {
		"uprobe", "uretprobe", "perf", "tracepoint", "raw tracepoint",
		"kprobe", "kretprobe", "fentry", "fexit",
	};

	if (ev == NULL || ev->size < offsetof(dtrace_event_t, flags) +
				     sizeof(ev->flags)) {
		dt_warn(pv->dtp, "plugin %s: host->sites->event() without a valid "
			"event", pv->path);
		return -EINVAL;
	}
	if (ev->type == DTRACE_EVENT_TRACEPOINT)
		return tracepoint_probe(pv, ev);
	if (dt_kevent_offered(ev->type))
		return dt_prog_kernel_event(pv->dtp, pv, ev);
	if ((unsigned)ev->type < sizeof(names) / sizeof(*names))
		dt_warn(pv->dtp, "plugin %s: %s events are not offered by this "
			"dtrace%s", pv->path, names[ev->type],
			ev->type <= DTRACE_EVENT_PERF ?
			" through host->sites->event() (use uprobe() or perf_probe())"
			: "");
	else
		dt_warn(pv->dtp, "plugin %s: unknown event type %d", pv->path,
			(int)ev->type);
	return -EOPNOTSUPP;
}

/* Whether field is the name a format line's declaration declares: the
 * last word, before an array's bounds ("char comm[16]") but after a type's
 * ("__data_loc char[] filename", a string whose bytes follow the record). */
static bool tp_decl_names(const char *decl, size_t len, const char *field)
{
	size_t n = len, flen = strlen(field);

	while (n > 0 && decl[n - 1] == ' ')
		n--;
	if (n > 0 && decl[n - 1] == ']') {	/* the name's bounds */
		while (n > 0 && decl[n - 1] != '[')
			n--;
		n = n > 0 ? n - 1 : 0;
	}
	return n > flen && strncmp(decl + n - flen, field, flen) == 0 &&
	       (decl[n - flen - 1] == ' ' || decl[n - flen - 1] == '*');
}

static int host_tp_field(dtrace_provider_t *pv, const char *cat,
			 const char *name, const char *field,
			 uint32_t *offset, uint32_t *size)
{
	FILE *fp = tp_open(pv, cat, name, "format");
	char line[512];
	int rc = -ENOENT;

	if (fp == NULL)
		return -ENOENT;
	while (rc < 0 && fgets(line, sizeof(line), fp) != NULL) {
		const char *decl = strstr(line, "field:");
		unsigned off, sz;
		if (decl == NULL)
			continue;
		decl += strlen("field:");
		const char *semi = strchr(decl, ';');
		if (semi == NULL || !tp_decl_names(decl, semi - decl, field))
			continue;
		const char *o = strstr(semi, "offset:"), *z = strstr(semi, "size:");
		if (o && z && sscanf(o, "offset:%u", &off) == 1 &&
		    sscanf(z, "size:%u", &sz) == 1) {
			*offset = off;
			*size = sz;
			rc = 0;
		}
	}
	fclose(fp);
	if (rc < 0)
		dt_warn(pv->dtp, "plugin %s asked for field %s of tracepoint "
			"%s:%s, which has none", pv->path, field, cat, name);
	return rc;
}

static const dtrace_host_report_t host_report = {
	.size = sizeof(dtrace_host_report_t),
	.error = host_error,
	.error_tag = host_error_tag,
	.warn = host_warn,
	.debug = host_debug,
};

static const dtrace_host_probes_t host_probes = {
	.size = sizeof(dtrace_host_probes_t),
	.insert = host_probe_insert,
	.lookup = host_probe_lookup,
	.priv = host_probe_priv,
	.attr = host_probe_attr,
	.name = host_probe_name,
	.at_function = host_probe_function,
	.glob_match = host_glob_match,
	.provide_again = host_provide_again,
	.description = host_probe_description,
	.of_process = host_probe_of_process,
};

static const dtrace_host_sites_t host_sites = {
	.size = sizeof(dtrace_host_sites_t),
	.uprobe = host_uprobe,
	.overlay = host_overlay,
	.perf = host_perf_probe,
	.event = host_event,
	.tp_field = host_tp_field,
	.fire = host_fire,
	.uprobe_nop5 = host_uprobe_nop5,
	.watch_exec = host_watch_exec,
	.gate_exec = host_gate_exec,
};

static const dtrace_host_bpf_t host_bpf = {
	.size = sizeof(dtrace_host_bpf_t),
	.map_create = host_map_create,
	.map_pinned = host_map_pinned,
	.map_fd = host_map_fd,
	.emit = dt_as_emit,
	.label_new = dt_as_label,
	.label_place = dt_as_place,
	.jump = dt_as_jump,
	.load_map = dt_as_load_map,
	.cold = host_cold,
	.call = dt_as_call,
	.kernel_btf = dt_host_kernel_btf,
	.kernel_member_offset = dt_host_kernel_member_offset,
};

static const dtrace_host_elf_t host_elf = {
	.size = sizeof(dtrace_host_elf_t),
	.open = dt_host_elf_open,
	.release = dt_host_elf_release,
	.symbols = dt_host_elf_symbols,
	.sym_by_name = dt_host_elf_sym_by_name,
	.sym_value = dt_host_elf_sym_value,
	.vaddr_to_offset = dt_host_elf_vaddr_to_offset,
	.read = dt_host_elf_read,
	.entry = dt_host_elf_entry,
	.type = dt_host_elf_type,
	.section = dt_host_elf_section,
	.stapsdt = dt_host_elf_stapsdt,
};

static const dtrace_host_proc_t host_proc = {
	.size = sizeof(dtrace_host_proc_t),
	.grab = dt_host_proc_grab,
	.modules = dt_host_proc_modules,
	.release = dt_host_proc_release,
	.module_name_is = dt_host_module_name_is,
	.maps = dt_proc_maps,
	.maps_free = dt_proc_maps_free,
};

const dtrace_host_t dt_host = {
	.major = DTRACE_PROVIDER_MAJOR,
	.minor = DTRACE_PROVIDER_MINOR,
	.size = sizeof(dtrace_host_t),
	.report = &host_report,
	.probes = &host_probes,
	.sites = &host_sites,
	.bpf = &host_bpf,
	.elf = &host_elf,
	.proc = &host_proc,
};
