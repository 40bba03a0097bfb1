/* SPDX-License-Identifier: MIT */
/*
 * dt_plugcall.c: calls into a plugin, and the crash handler that names
 * the plugin whose operation ran when dtrace crashed.
 *
 * A plugin that faults kills dtrace (it runs in dtrace's process); the
 * line written before it dies says which plugin and which of its
 * operations ran: "dtrace: plugin FILE crashed in provide(): SIGSEGV".
 * The handler can know only what is in static storage: crash_path and
 * crash_op, set around each call into a plugin (dt_plugin_enter(), and
 * dt_plugcall_watch() while it is loaded), and the actions it displaced,
 * which it puts back before the signal is taken again, so that the
 * default action (or a sanitizer's report, whose handler was there
 * first) still ends the process.  It runs on the alternate signal stack
 * when there is one (AddressSanitizer's), so that a plugin's stack
 * overflow is named too.  The state is the process's, not a thread's: a
 * crash of another thread while a plugin's operation runs would be put on
 * that plugin.
 */
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_plugcall.h"

static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static const char *const crash_names[] = {
	"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT",
};
#define CRASH_NSIGNALS (sizeof(crash_signals) / sizeof(crash_signals[0]))
static struct sigaction crash_displaced[CRASH_NSIGNALS];
static bool crash_installed;
static const char *volatile crash_path;	/* plugin file, or NULL */
static const char *volatile crash_op;

/* Append s to buf (of size len, holding *n bytes), async-signal-safely. */
static void crash_append(char *buf, size_t len, size_t *n, const char *s)
{
	while (*s != '\0' && *n < len - 1)
		buf[(*n)++] = *s++;
}

static void crash_report(int sig, siginfo_t *si, void *uctx)
{
	const char *path = crash_path, *op = crash_op;
	size_t i = 0;

	while (i < CRASH_NSIGNALS - 1 && crash_signals[i] != sig)
		i++;
	if (path != NULL) {
		char line[PATH_MAX + 128];
		size_t n = 0;

		crash_append(line, sizeof(line), &n, "dtrace: plugin ");
		crash_append(line, sizeof(line), &n, path);
		crash_append(line, sizeof(line), &n, " crashed in ");
		crash_append(line, sizeof(line), &n, op);
		crash_append(line, sizeof(line), &n, ": ");
		crash_append(line, sizeof(line), &n, crash_names[i]);
		line[n++] = '\n';
		ssize_t w = write(STDERR_FILENO, line, n);
		(void)w;	/* nothing else to tell it to */
	}
	sigaction(sig, &crash_displaced[i], NULL);
	/* A signal sent (abort(), kill) is sent again, to be taken once this
	 * returns; a fault happens again when the instruction runs again. */
	if (si->si_code <= 0)
		raise(sig);
}

void dt_plugcall_install(void)
{
	struct sigaction sa = {
		.sa_sigaction = crash_report,
		.sa_flags = SA_SIGINFO | SA_ONSTACK,
	};

	if (crash_installed)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < CRASH_NSIGNALS; i++)
		sigaction(crash_signals[i], &sa, &crash_displaced[i]);
	crash_installed = true;
}

void dt_plugcall_remove(void)
{
	if (!crash_installed)
		return;
	for (size_t i = 0; i < CRASH_NSIGNALS; i++)
		sigaction(crash_signals[i], &crash_displaced[i], NULL);
	crash_installed = false;
}

dt_plugin_call_t dt_plugcall_watch(const char *path, const char *op)
{
	dt_plugin_call_t saved = { NULL, crash_path, crash_op };

	crash_op = op;
	crash_path = path;
	return saved;
}

void dt_plugcall_unwatch(dt_plugin_call_t saved)
{
	crash_path = saved.path;
	crash_op = saved.op;
}

dt_plugin_call_t dt_plugin_enter(dtrace_hdl_t *dtp, dt_provider_t *pv,
				 const char *op)
{
	dt_plugin_call_t saved = dt_plugcall_watch(pv->path, op);

	saved.pv = dtp->cur_provider;
	dtp->cur_provider = pv;
	return saved;
}

void dt_plugin_leave(dtrace_hdl_t *dtp, dt_plugin_call_t saved)
{
	dtp->cur_provider = saved.pv;
	dt_plugcall_unwatch(saved);
}

