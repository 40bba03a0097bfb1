/*
 * pid_late.c: libraries a traced process loads while tracing (dlopen).
 *
 * provide() remembers every description that names a pid.  Once tracing
 * has started, poll() (called by the engine at least every 100 ms) looks at
 * each target's file mappings; when they changed, it reads the modules
 * again, matches the remembered descriptions against them, and enables the
 * probes this creates (new uprobes take effect at once, see provider.h).
 * The check is one read of /proc/PID/maps and a hash of its file-backed
 * lines: nothing is parsed while the mappings stay the same.
 *
 * The engine decides which clauses a probe created while tracing runs
 * (it matches the new probe against the clauses' descriptions); this file
 * only creates and places it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pid_impl.h"

static char *dup_field(const char *s)
{
	return strdup(s ? s : "");
}

static bool same_field(const char *a, const char *b)
{
	return strcmp(a, b ? b : "") == 0;
}

int pid_late_remember(pid_session_t *ps, const dtrace_probedesc_t *pdp,
		      pid_t pid)
{
	pid_late_desc_t *d;
	int i;

	for (i = 0; i < ps->nlate; i++) {
		d = &ps->late[i];
		if (d->pid == pid && same_field(d->prv, pdp->prv) &&
		    same_field(d->mod, pdp->mod) &&
		    same_field(d->fun, pdp->fun) &&
		    same_field(d->prb, pdp->prb))
			return 0;
	}
	d = realloc(ps->late, (ps->nlate + 1) * sizeof(*d));
	if (d == NULL)
		return -ENOMEM;
	ps->late = d;
	d = &d[ps->nlate];
	*d = (pid_late_desc_t){ .pid = pid, .prv = dup_field(pdp->prv),
				.mod = dup_field(pdp->mod),
				.fun = dup_field(pdp->fun),
				.prb = dup_field(pdp->prb) };
	if (!d->prv || !d->mod || !d->fun || !d->prb) {
		free(d->prv);
		free(d->mod);
		free(d->fun);
		free(d->prb);
		return -ENOMEM;
	}
	ps->nlate++;
	return 0;
}

/* FNV-1a over the file-backed lines of /proc/PID/maps; *gone when the
 * process no longer exists. */
static uint64_t maps_signature(pid_t pid, bool *gone)
{
	char path[64], line[4352];
	uint64_t h = 14695981039346656037ull;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "re")) == NULL) {
		*gone = true;
		return 0;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, " /") == NULL)
			continue;
		for (const char *p = line; *p; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
	}
	fclose(f);
	*gone = false;
	return h;
}

void pid_late_start(pid_session_t *ps)
{
	bool gone;
	int i;

	ps->tracing = true;
	for (i = 0; i < ps->ntargets; i++)
		ps->targets[i].maps_sig = maps_signature(ps->targets[i].pid,
							 &gone);
}

/* Match the remembered descriptions of target t again; enable what is
 * new. */
static int rematch(dtrace_provider_t *pv, pid_session_t *ps, pid_target_t *t)
{
	int i, j, n, rc;

	for (i = 0; i < ps->nlate; i++) {
		const pid_late_desc_t *d = &ps->late[i];
		dtrace_probedesc_t pd = { d->prv, d->mod, d->fun, d->prb };
		dtrace_probe_t **fresh = NULL;

		if (d->pid != t->pid)
			continue;
		rc = pid_provide_target(pv, ps, &pd, t, &fresh, &n);
		for (j = 0; rc >= 0 && j < n; j++)
			pid_enable(pv, ps, fresh[j]);
		free(fresh);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pid_poll(dtrace_provider_t *pv, void *data)
{
	pid_session_t *ps = data;
	int i, rc;

	if (!ps->tracing || ps->nlate == 0)
		return 0;
	for (i = 0; i < ps->ntargets; i++) {
		pid_target_t *t = &ps->targets[i];
		dtrace_proc_t *proc;
		char msg[256];
		uint64_t sig;
		bool gone;

		if (t->gone)
			continue;
		sig = maps_signature(t->pid, &gone);
		if (gone || sig == t->maps_sig) {
			t->gone = gone;
			continue;
		}
		t->maps_sig = sig;
		if (pid_host->proc_grab(pv, t->pid, &proc, msg,
					sizeof(msg)) != 0)
			continue;	/* exiting: nothing to add */
		pid_host->proc_release(t->proc);
		t->proc = proc;
		if ((rc = rematch(pv, ps, t)) < 0)
			return rc;
	}
	pid_report_skipped(pv, ps);
	return 0;
}

void pid_late_free(pid_session_t *ps)
{
	int i;

	for (i = 0; i < ps->nlate; i++) {
		free(ps->late[i].prv);
		free(ps->late[i].mod);
		free(ps->late[i].fun);
		free(ps->late[i].prb);
	}
	free(ps->late);
	ps->late = NULL;
	ps->nlate = 0;
}
