/* SPDX-License-Identifier: MIT */
/*
 * dt_plugcall.h: calls into a plugin.  Each operation of a plugin runs
 * between dt_plugin_enter() and dt_plugin_leave(), which say whose
 * operation runs: to the engine (dtp->cur_provider, so that the host
 * functions know who asks) and to the crash handler, which names the
 * plugin's file and the operation should dtrace crash meanwhile (see
 * dt_plugcall.c).
 */
#ifndef DT_PLUGCALL_H
#define DT_PLUGCALL_H

typedef struct dtrace_hdl dtrace_hdl_t;
typedef struct dtrace_provider dt_provider_t;

/* What a call replaced, for the one that ends it.  Calls nest. */
typedef struct dt_plugin_call {
	dt_provider_t *pv;	/* dtp->cur_provider before */
	const char *path, *op;	/* what the crash handler named before */
} dt_plugin_call_t;

/* pv's operation op ("provide()") runs from now on. */
dt_plugin_call_t dt_plugin_enter(dtrace_hdl_t *dtp, dt_provider_t *pv,
				 const char *op);
void dt_plugin_leave(dtrace_hdl_t *dtp, dt_plugin_call_t saved);

/* The plugin file path runs op before it has a provider (its constructors
 * in dlopen(), its init function); path must live until the unwatch. */
dt_plugin_call_t dt_plugcall_watch(const char *path, const char *op);
void dt_plugcall_unwatch(dt_plugin_call_t saved);

/* The crash handler on SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT, from
 * before the first plugin is loaded until the session ends; remove puts
 * back the actions it displaced. */
void dt_plugcall_install(void);
void dt_plugcall_remove(void);

#endif
