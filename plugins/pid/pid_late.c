/* SPDX-License-Identifier: MIT */
/*
 * pid_late.c: libraries a traced process loads while tracing (dlopen).
 *
 * Once tracing has started, poll() (called by the engine at least every
 * 100 ms) looks at each target's file mappings; when they changed, it
 * reads the modules again and asks the engine to provide again
 * (host->provide_again): the engine keeps the program's descriptions,
 * calls provide() with each, and enables the probes this creates that a
 * clause matches (new uprobes take effect at once, see provider.h).  The
 * check is one read of the process's mappings (host->proc_maps) and a
 * hash of its file-backed ones: no module is read while they stay the
 * same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pid_impl.h"

static uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
	return h;
}

/* FNV-1a over the file mappings of pid (host->proc_maps); *gone when the
 * process no longer exists. */
static uint64_t maps_signature(pid_t pid, bool *gone)
{
	uint64_t h = 14695981039346656037ull;
	dtrace_mapping_t *maps;
	size_t n;

	*gone = pid_host->proc_maps(pid, &maps, &n) != 0;
	if (*gone)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const dtrace_mapping_t *m = &maps[i];

		if (!dtrace_mapping_is_file(m))
			continue;
		h = fnv1a(h, &m->start, sizeof(m->start));
		h = fnv1a(h, &m->end, sizeof(m->end));
		h = fnv1a(h, &m->pgoff, sizeof(m->pgoff));
		h = fnv1a(h, &m->ino, sizeof(m->ino));
		h = fnv1a(h, m->path, strlen(m->path));
	}
	pid_host->proc_maps_free(maps, n);
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

int pid_poll(dtrace_provider_t *pv, void *data)
{
	pid_session_t *ps = data;
	int i, rc;

	bool changed = false;

	if (!ps->tracing || ps->ntargets == 0)
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
		changed = true;
	}
	if (changed && (rc = pid_host->provide_again(pv)) < 0)
		return rc;
	pid_report_skipped(pv, ps);
	return 0;
}
