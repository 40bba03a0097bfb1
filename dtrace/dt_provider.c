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
 * The host table dispatches to the engine's subsystems; the provider whose
 * operation is running is dtp->cur_provider, which is how probe_insert()
 * knows whose probe it creates.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_as.h"
#include "dt_bpf.h"
#include "dt_exec.h"
#include "dt_program.h"

#ifndef DT_PLUGINDIR
#define DT_PLUGINDIR "/usr/local/lib/dtrace/plugins"
#endif

static bool provider_loaded(dtrace_hdl_t *dtp, const char *file)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next) {
		const char *base = strrchr(pv->path, '/');
		if (strcmp(base ? base + 1 : pv->path, file) == 0)
			return true;
	}
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

static int provider_load(dtrace_hdl_t *dtp, const char *path)
{
	void *dlh = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (dlh == NULL) {
		dt_warn(dtp, "failed to load plugin %s: %s", path, dlerror());
		return -1;
	}

	dtrace_provider_init_f init =
		(dtrace_provider_init_f)dlsym(dlh, DTRACE_PROVIDER_INIT);
	const dtrace_provider_ops_t *ops = init ? init(&dt_host) : NULL;
	if (ops == NULL) {
		dt_warn(dtp, "plugin %s has no %s", path, DTRACE_PROVIDER_INIT);
		dlclose(dlh);
		return -1;
	}
	if (ops->version != DTRACE_PROVIDER_VERSION) {
		dt_warn(dtp, "plugin %s was built for provider interface "
			"version %d, this dtrace has version %d: not loaded",
			path, ops->version, DTRACE_PROVIDER_VERSION);
		dlclose(dlh);
		return -1;
	}
	if (ops->name == NULL || ops->provide == NULL ||
	    ops->enable == NULL || ops->trampoline == NULL) {
		dt_warn(dtp, "plugin %s lacks a required operation: not loaded",
			path);
		dlclose(dlh);
		return -1;
	}

	dt_provider_t *pv = dt_zalloc(sizeof(*pv));
	pv->ops = ops;
	pv->path = dt_strdup(path);
	pv->dlh = dlh;
	if (ops->attach_session != NULL) {
		dt_provider_t *saved_pv = dtp->cur_provider;
		dtp->cur_provider = pv;
		pv->data = ops->attach_session(dtp);
		dtp->cur_provider = saved_pv;
		if (pv->data == NULL) {
			if (dtp->errmsg[0] != '\0')
				dt_warn(dtp, "%s", dtp->errmsg);
			dtp->errmsg[0] = '\0';
			free(pv->path);
			free(pv);
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

/* Load every *.so of dir not loaded yet, in name order. */
static void provider_load_dir(dtrace_hdl_t *dtp, const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0;

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

int dt_provider_load_all(dtrace_hdl_t *dtp)
{
	for (const char **d = dtp->plugin_dirs; d && *d; d++)
		provider_load_dir(dtp, *d);

	const char *env = getenv("DTRACE_PLUGIN_PATH");
	if (env != NULL) {
		char *copy = dt_strdup(env), *save = NULL;
		for (char *dir = strtok_r(copy, ":", &save); dir;
		     dir = strtok_r(NULL, ":", &save))
			provider_load_dir(dtp, dir);
		free(copy);
	}
	/* Beside the command (build/dtrace and build/plugins/), so that a
	 * build runs from its tree without installing. */
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 16);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash != NULL) {
			strcpy(slash + 1, "plugins");
			provider_load_dir(dtp, exe);
		}
	}
	provider_load_dir(dtp, DT_PLUGINDIR);

	if (dtp->providers == NULL) {
		dt_set_error(dtp, "no provider plugins found (looked in "
			     "DTRACE_PLUGIN_PATH and %s)", DT_PLUGINDIR);
		return -1;
	}
	return 0;
}

void dt_provider_fini(dtrace_hdl_t *dtp)
{
	dt_provider_t *pv = dtp->providers;

	dtp->providers = NULL;
	while (pv != NULL) {
		dt_provider_t *next = pv->next;
		if (pv->ops->detach_session)
			pv->ops->detach_session(dtp, pv->data);
		/* Plugins stay mapped: probes' private data may point into
		 * them until the session is gone, and exit is near. */
		free(pv->path);
		free(pv);
		pv = next;
	}
}

/* The host table. */

static void host_error(dtrace_hdl_t *dtp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dtp->errmsg, sizeof(dtp->errmsg), fmt, ap);
	va_end(ap);
}

static void host_warn(dtrace_hdl_t *dtp, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	dt_warn(dtp, "%s", buf);
}

static dtrace_probe_t *host_probe_insert(dtrace_hdl_t *dtp, const char *prv,
					 const char *mod, const char *fun,
					 const char *prb, void *priv)
{
	if (prv == NULL || mod == NULL || fun == NULL || prb == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return dt_probe_insert(dtp, dtp->cur_provider, prv, mod, fun, prb,
			       priv);
}

static void *host_probe_priv(const dtrace_probe_t *prp)
{
	return prp->priv;
}

static uint32_t host_probe_id(const dtrace_probe_t *prp)
{
	return prp->id;
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

static int64_t host_uprobe(dtrace_hdl_t *dtp, const dtrace_uprobe_t *up)
{
	return dt_prog_uprobe(dtp, dtp->cur_provider, up);
}

static int64_t host_perf_probe(dtrace_hdl_t *dtp,
			       const dtrace_perfprobe_t *pp)
{
	return dt_prog_perf_probe(dtp, dtp->cur_provider, pp);
}

static int host_overlay(dtrace_hdl_t *dtp, int64_t cookie, pid_t pid,
			dtrace_probe_t *prp)
{
	return dt_prog_overlay(dtp, cookie, pid, prp);
}

static dtrace_map_t *host_map_create(dtrace_hdl_t *dtp, const char *name,
				     enum bpf_map_type type, uint32_t ksize,
				     uint32_t vsize, uint32_t n)
{
	return dt_bpf_map(dtp, name, type, ksize, vsize, n);
}

static int host_map_fd(const dtrace_map_t *map)
{
	return map->fd;
}

const dtrace_host_t dt_host = {
	.version = DTRACE_PROVIDER_VERSION,
	.error = host_error,
	.warn = host_warn,
	.probe_insert = host_probe_insert,
	.probe_lookup = dt_probe_lookup,
	.probe_priv = host_probe_priv,
	.probe_id = host_probe_id,
	.probe_name = host_probe_name,
	.glob_match = dt_glob_match,
	.uprobe = host_uprobe,
	.overlay = host_overlay,
	.map_create = host_map_create,
	.map_pinned = dt_bpf_map_pinned,
	.map_fd = host_map_fd,
	.emit = dt_as_emit,
	.label_new = dt_as_label,
	.label_place = dt_as_place,
	.jump = dt_as_jump,
	.load_map = dt_as_load_map,
	.perf_probe = host_perf_probe,
	.watch_exec = dt_exec_watch,
	.fire = dt_prog_fire,
	.gate_exec = dt_exec_gate,
};
