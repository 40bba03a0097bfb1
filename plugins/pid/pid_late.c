/* SPDX-License-Identifier: MIT */
/*
 * pid_late.c: libraries a traced process loads while tracing (dlopen).
 *
 * Whenever the plugin reads a target's modules (pid_target_refresh(), at
 * provide() time and here), it first keeps the target's file mappings
 * (host->proc->maps) as they were then.  Once tracing has started, poll()
 * (called by the engine at least every 100 ms) reads the mappings again;
 * when their files or places differ from the ones kept, it reads the
 * modules again and asks the engine to provide again
 * (host->probes->provide_again): the engine keeps the program's descriptions,
 * calls provide() with each, and enables the probes this creates that a
 * clause matches (new uprobes take effect at once, see provider.h).
 *
 * The mappings are kept from before the modules were read, never from a
 * later moment: a library mapped between the two readings (or between
 * provide() and start(), which may be far apart on a loaded machine) is
 * then a difference the next poll() sees, not a state it takes as known.
 * A reading of the modules that fails keeps the old mappings, so that the
 * next poll() tries again.
 *
 * A target that execs has its probes removed with its old image, as in
 * DTrace: the plugin watches the targets' execs (host->sites->watch_exec)
 * and stops reading a target once it exec'ed (pid_notice_process()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pid_impl.h"

/* A line for -x debug. */
#define pid_debug(pv, ...)	pid_host->report->debug(pv, __VA_ARGS__)

static bool same_file_mapping(const dtrace_mapping_t *a,
			      const dtrace_mapping_t *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->pgoff == b->pgoff && a->dev == b->dev && a->ino == b->ino &&
	       strcmp(a->path, b->path) == 0;
}

/* The next file mapping of maps[n] from *i on, or NULL. */
static const dtrace_mapping_t *next_file_mapping(const dtrace_mapping_t *maps,
						 size_t n, size_t *i)
{
	for (; *i < n; (*i)++)
		if (dtrace_mapping_is_file(&maps[*i]))
			return &maps[(*i)++];
	return NULL;
}

/* Whether two readings of a process's mappings map the same files at the
 * same places (anonymous mappings, which change all the time, left out). */
static bool same_files_mapped(const pid_maps_t *a, const pid_maps_t *b)
{
	size_t i = 0, j = 0;

	for (;;) {
		const dtrace_mapping_t *x = next_file_mapping(a->v, a->n, &i);
		const dtrace_mapping_t *y = next_file_mapping(b->v, b->n, &j);

		if (x == NULL || y == NULL)
			return x == y;
		if (!same_file_mapping(x, y))
			return false;
	}
}

int pid_maps_read(pid_t pid, pid_maps_t *m)
{
	return pid_host->proc->maps(pid, &m->v, &m->n);
}

void pid_maps_free(pid_maps_t *m)
{
	if (m->v != NULL)
		pid_host->proc->maps_free(m->v, m->n);
	*m = (pid_maps_t){ NULL, 0 };
}

/* The targets' execs are watched: their probes end with their image. */
int pid_late_start(dtrace_provider_t *pv, pid_session_t *ps)
{
	ps->tracing = true;
	if (ps->ntargets == 0 || pid_host->sites->watch_exec == NULL)
		return 0;
	return pid_host->sites->watch_exec(pv);
}

/*
 * A target exec'ed.  DTrace removes a process's pid probes with the image
 * they were made for: the engine has taken their overlays out of the
 * kernel (dt_prog_retire_pid()), and the target is no longer read again,
 * so that no probe of the new image is made after the fact, whether or
 * not its functions have the old one's names.  Other processes' execs,
 * and library changes (poll() reads the targets' mappings), are not the
 * plugin's business here.
 */
int pid_notice_process(dtrace_provider_t *pv, void *data, pid_t pid,
		       int what)
{
	pid_session_t *ps = data;

	if (what != DTRACE_NOTICE_EXEC)
		return 0;
	for (int i = 0; i < ps->ntargets; i++) {
		pid_target_t *t = &ps->targets[i];

		if (t->pid != pid || t->gone)
			continue;
		t->gone = true;
		pid_debug(pv, "process %d exec'ed: its probes are removed",
			  (int)pid);
	}
	return 0;
}

/* Target t's modules read again when the files it maps changed; true
 * when they were. */
static bool target_changed(dtrace_provider_t *pv, pid_target_t *t)
{
	dtrace_proc_t *proc;
	char msg[256];
	pid_maps_t now;

	if (pid_maps_read(t->pid, &now) != 0) {
		t->gone = true;
		return false;
	}
	if (same_files_mapped(&now, &t->maps)) {
		pid_maps_free(&now);
		return false;
	}
	if (pid_host->proc->grab(pv, t->pid, &proc, msg, sizeof(msg)) != 0) {
		pid_maps_free(&now);	/* the next poll() tries again */
		pid_debug(pv, "process %d: its mappings changed but its "
			  "modules could not be read: %s", (int)t->pid, msg);
		return false;
	}
	pid_maps_free(&t->maps);
	t->maps = now;
	pid_host->proc->release(t->proc);
	t->proc = proc;
	const dtrace_module_t *mods;
	pid_debug(pv, "process %d: its mappings changed: probes matched again "
		  "against its %d modules", (int)t->pid,
		  pid_host->proc->modules(proc, &mods));
	return true;
}

int pid_poll(dtrace_provider_t *pv, void *data)
{
	pid_session_t *ps = data;
	bool changed = false;
	int rc;

	if (!ps->tracing)
		return 0;
	for (int i = 0; i < ps->ntargets; i++)
		if (!ps->targets[i].gone && target_changed(pv, &ps->targets[i]))
			changed = true;
	if (changed && (rc = pid_host->probes->provide_again(pv)) < 0)
		return rc;
	pid_report_skipped(pv, ps);
	return 0;
}
