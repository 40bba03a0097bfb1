/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_attach.c: the links of the underlying probes.
 *
 * One request per (program, file, process, return flag) makes the links
 * the underlying probes still need (dt_attach_pending()); links for every
 * process retire the per-process ones they cover, sites a user joined are
 * linked again to their new program before their old links close, and
 * links the kernel refused for a reason that may pass are asked for again
 * ("Refused links" below).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dt_prog_impl.h"
#include "dt_kevent.h"
#include "dt_uretdepth.h"

/* A perf-event underlying probe: one event per CPU it covers. */
static int attach_perf_entry(dtrace_hdl_t *dtp, struct dt_progset *ps,
			     uint32_t idx)
{
	dt_uprobe_ent_t *u = &ps->ups[idx];
	int first = u->pp.cpu, last = u->pp.cpu;

	if (u->pp.cpu < 0) {
		first = 0;
		last = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	}
	for (int cpu = first; cpu <= last; cpu++) {
		int rc = dt_bpf_attach_perf_event(dtp, ps->progs[u->prog].fd,
						  u->pp.type, u->pp.config,
						  u->pp.period, cpu, idx + 1);
		/* The kernel refuses a tracepoint program that reads past
		 * the record: what a clause reading registers does. */
		if (rc == -EACCES && dt_ent_is_tracepoint(u))
			dt_set_error(dtp, "failed to attach to a tracepoint of "
				     "plugin %s: a clause reads registers "
				     "(uregs, ucaller, ustack()...), which a "
				     "tracepoint does not give", u->pv->path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Whether u still needs its link for process pid (0: every process). */
static bool link_pending(const dt_uprobe_ent_t *u, pid_t pid)
{
	if (u->all)
		return pid == 0 && !u->all_attached;
	for (uint32_t i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			return !u->pids[i].attached;
	return false;
}

static void link_done(dt_uprobe_ent_t *u, pid_t pid, int group)
{
	if (pid == 0) {
		u->all_attached = true;
		u->all_group = group;
	}
	for (uint32_t i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid) {
			u->pids[i].attached = true;
			u->pids[i].group = group;
		}
}

/* The first process u still needs a link for: 0 for every process, a pid,
 * or -1 when it has all its links. */
static pid_t link_next(const dt_uprobe_ent_t *u)
{
	if (u->all)
		return u->all_attached ? -1 : 0;
	for (uint32_t i = 0; i < u->npids; i++)
		if (!u->pids[i].attached)
			return u->pids[i].pid;
	return -1;
}

/* Whether u is attached by request (not a perf event, not run directly,
 * not held by sites_refresh_mark()). */
static bool attachable(const struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	return u->prog >= 0 && !u->perf && ps->progs[u->prog].soft_cookie <= 0 &&
	       !u->held;
}

typedef struct dt_attach_bufs {
	uint64_t *offs, *refs, *cookies;
	int *errs;
} dt_attach_bufs_t;

/*
 * Refused links.  The kernel may refuse a site's link for a reason that
 * passes (memory, descriptors, a busy resource): that link is asked for
 * again DT_ATTACH_RETRY_NS later, from the trace loop's poll
 * (dt_prog_poll_providers()), up to DT_ATTACH_TRIES requests in all.  Any
 * other refusal (the process is gone, an instruction a uprobe cannot
 * replace), or the last one, gives the site up: it counts as done, so that
 * no later batch asks again.  Each refusal is reported by the names of the
 * probes on the site, with what happens next, and so is a link made on a
 * later try, since what the site fired before it was not seen.
 */
#define DT_ATTACH_TRIES		5
#define DT_ATTACH_RETRY_NS	(100 * 1000 * 1000ull)
#define DT_ATTACH_REPORTS	10	/* sites named per request */

static bool refusal_passes(int err)
{
	return err == ENOMEM || err == EAGAIN || err == EMFILE ||
	       err == ENFILE || err == EBUSY || err == EINTR || err == ENOSPC;
}

/* The requests refused so far of u's link for process pid. */
static uint8_t *link_tries(dt_uprobe_ent_t *u, pid_t pid)
{
	if (pid == 0)
		return &u->all_tries;
	for (uint32_t i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			return &u->pids[i].tries;
	return NULL;
}

/* The probes that fire at ups[idx] in process pid (0: in any), by name:
 * the first two, then how many more. */
static void site_names(dtrace_hdl_t *dtp, const struct dt_progset *ps,
		       uint32_t idx, pid_t pid, char *buf, size_t len)
{
	size_t off = 0;
	int n = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < ps->novls; i++) {
		const dt_overlay_ent_t *o = &ps->ovls[i];

		if (o->cookie != idx + 1 ||
		    (pid != 0 && o->pid != 0 && o->pid != (uint32_t)pid))
			continue;
		for (uint32_t j = 0; j < o->n; j++, n++) {
			const dtrace_probe_t *p = dt_probe_by_id(dtp,
								 o->prids[j]);
			if (n >= 2 || p == NULL || off >= len)
				continue;
			off += (size_t)snprintf(buf + off, len - off,
						"%s%s:%s:%s:%s", n ? ", " : "",
						p->prv, p->mod, p->fun, p->prb);
		}
	}
	if (n > 2 && off < len)
		snprintf(buf + off, len - off, " and %d more", n - 2);
	else if (n == 0)
		snprintf(buf, len, "a probe");
}

/* Report site k of a request (ups[idx] for process pid) that the kernel
 * refused with err, or (err 0) attached after refusals; a refusal that may
 * pass is queued to be asked for again unless final. */
static void site_report(dtrace_hdl_t *dtp, struct dt_progset *ps,
			uint32_t idx, pid_t pid, int err, bool final)
{
	dt_uprobe_ent_t *u = &ps->ups[idx];
	uint8_t *tries = link_tries(u, pid);
	char names[512], whose[48];

	if (tries == NULL || (err == 0 && *tries == 0))
		return;
	site_names(dtp, ps, idx, pid, names, sizeof(names));
	if (pid == 0)
		snprintf(whose, sizeof(whose), "every process");
	else
		snprintf(whose, sizeof(whose), "process %d", (int)pid);
	if (err == 0) {
		dt_warn(dtp, "%s: the uprobe at offset 0x%llx of %s for %s is "
			"attached at try %d: what it fired before was not "
			"seen", names, (unsigned long long)u->offset, u->path,
			whose, *tries + 1);
		*tries = 0;
		return;
	}
	bool again = !final && refusal_passes(err) &&
		     ++*tries < DT_ATTACH_TRIES;
	dt_warn(dtp, "%s: the kernel refused the uprobe at offset 0x%llx of "
		"%s for %s: %s%s", names, (unsigned long long)u->offset,
		u->path, whose, strerror(err), final ? "" : again ?
		"; trying again" : "; not traced");
	if (!again)
		return;
	ps->refused = dt_realloc(ps->refused, (ps->nrefused + 1) *
				 sizeof(*ps->refused));
	ps->refused[ps->nrefused++] = (dt_refused_t){ .idx = idx, .pid = pid };
	ps->retry_at = dt_now_ns() + DT_ATTACH_RETRY_NS;
}

/* The sites of a request the kernel refused, or attached after refusals,
 * reported (DT_ATTACH_REPORTS of them by name, then a count); final when
 * the session ends for it.  Returns how many were refused. */
static uint32_t request_report(dtrace_hdl_t *dtp, struct dt_progset *ps,
			       pid_t pid, const dt_attach_bufs_t *b, uint32_t n,
			       const char *path, bool final)
{
	uint32_t refused = 0;

	for (uint32_t k = 0; k < n; k++) {
		if (b->errs[k] != 0 && ++refused > DT_ATTACH_REPORTS)
			continue;
		site_report(dtp, ps, (uint32_t)b->cookies[k] - 1, pid,
			    b->errs[k], final);
	}
	if (refused > DT_ATTACH_REPORTS)
		dt_warn(dtp, "%u more uprobes of %s refused by the kernel: not "
			"traced", refused - DT_ATTACH_REPORTS, path);
	return refused;
}

/* The refused links whose time has come made pending again: true when
 * some are, for the caller to ask for them (a batch). */
bool dt_refused_due(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dtp->progs;

	if (ps == NULL || ps->nrefused == 0 || dt_now_ns() < ps->retry_at)
		return false;
	for (uint32_t r = 0; r < ps->nrefused; r++) {
		dt_uprobe_ent_t *u = &ps->ups[ps->refused[r].idx];
		pid_t pid = ps->refused[r].pid;

		if (pid == 0) {
			u->all_attached = false;
			u->all_group = -1;
		}
		for (uint32_t i = 0; i < u->npids; i++)
			if (pid != 0 && u->pids[i].pid == pid) {
				u->pids[i].attached = false;
				u->pids[i].group = -1;
			}
	}
	ps->nrefused = 0;
	ps->links_pending = true;
	return true;
}

/* One request: the links of process pid that the underlying probes from
 * index i on, of u's program, file and return flag, still need.  Late, or
 * when the file is gone, the sites refused are reported by name and the
 * request goes on. */
static int attach_group(dtrace_hdl_t *dtp, struct dt_progset *ps, uint32_t i,
			pid_t pid, dt_attach_bufs_t *b, bool late)
{
	const dt_uprobe_ent_t *u = &ps->ups[i];
	uint32_t n = 0;
	bool any_ref = false;

	/* Each request's links are kept apart: a link for every process may
	 * replace a process's later (retire_mark), and a site's links go
	 * when a user joins it (site_join()). */
	ps->groups = dt_realloc(ps->groups, (ps->ngroups + 1) *
				sizeof(*ps->groups));
	ps->groups[ps->ngroups] = (dt_linkset_t){ 0 };
	int group = ps->ngroups++;

	for (uint32_t j = i; j < ps->nups; j++) {
		dt_uprobe_ent_t *v = &ps->ups[j];
		if (!attachable(ps, v) || v->prog != u->prog ||
		    (v->flags & DTRACE_UPROBE_RETURN) !=
			    (u->flags & DTRACE_UPROBE_RETURN) ||
		    !link_pending(v, pid) || strcmp(v->path, u->path) != 0)
			continue;
		link_done(v, pid, group);
		b->offs[n] = v->offset;
		b->refs[n] = v->ref_ctr;
		any_ref |= v->ref_ctr != 0;
		b->cookies[n] = j + 1;
		b->errs[n] = 0;
		n++;
	}
	dt_attach_req_t req = {
		.prog_fd = ps->progs[u->prog].fd,
		.path = u->path,
		.pid = pid,
		.retprobe = (u->flags & DTRACE_UPROBE_RETURN) != 0,
		.n = n,
		.offsets = b->offs,
		.ref_ctr_offsets = any_ref ? b->refs : NULL,
		.cookies = b->cookies,
		.links = &ps->groups[group],
		.errs = b->errs,
	};
	int rc = dt_bpf_attach_uprobes(dtp, &req);
	if (rc == 0)
		dt_uretdepth_attach(dtp, &req);	/* returns: what is omitted */
	/* A file gone since its probes were matched (another user's program
	 * removed while a session of every process started) costs its own
	 * sites, said by name, not the session. */
	bool gone = rc == -ENOENT;
	uint32_t refused = request_report(dtp, ps, pid, b, n, u->path,
					  rc < 0 && !late && !gone);
	if (rc < 0 && (late || gone) && refused > 0) {
		dtp->errmsg[0] = '\0';	/* each site said why */
		rc = 0;
	}
	return rc;
}

/* One pass over the underlying probes: the links they still need. */
static int attach_pass(dtrace_hdl_t *dtp, struct dt_progset *ps, bool late,
		       dt_attach_bufs_t *b)
{
	int rc = 0;

	for (uint32_t i = 0; i < ps->nups && rc == 0; i++) {
		dt_uprobe_ent_t *u = &ps->ups[i];
		pid_t pid;

		if (u->perf && u->prog >= 0 && !u->all_attached &&
		    ps->progs[u->prog].soft_cookie <= 0) {
			u->all_attached = true;
			rc = u->kev ? dt_kevent_attach(dtp, ps->progs[u->prog].fd,
						       u->kev, u->path, i + 1)
				    : attach_perf_entry(dtp, ps, i);
			continue;
		}
		while (rc == 0 && attachable(ps, u) &&
		       (pid = link_next(u)) >= 0) {
			rc = attach_group(dtp, ps, i, pid, b, late);
			if (rc < 0 && late) {
				dt_warn(dtp, "%s", dtp->errmsg);
				dtp->errmsg[0] = '\0';
				rc = 0;
			}
		}
	}
	return rc;
}

/* Mark the requests that hold u's links in marked[].  Returns whether
 * u has any. */
static bool link_groups_mark(const dt_uprobe_ent_t *u, bool *marked)
{
	bool any = false;

	if (u->all_attached && u->all_group >= 0)
		any = marked[u->all_group] = true;
	for (uint32_t k = 0; k < u->npids; k++)
		if (u->pids[k].attached && u->pids[k].group >= 0)
			any = marked[u->pids[k].group] = true;
	return any;
}

/* The underlying probes linked by a marked request lose that link: the
 * next pass asks for it again, but for a process that a link for every
 * process now covers. */
static void groups_unlink(struct dt_progset *ps, const bool *marked)
{
	for (uint32_t i = 0; i < ps->nups; i++) {
		dt_uprobe_ent_t *u = &ps->ups[i];

		if (u->all_group >= 0 && marked[u->all_group]) {
			u->all_attached = false;
			u->all_group = -1;
			ps->links_pending = true;
		}
		for (uint32_t k = 0; k < u->npids; k++) {
			dt_uprobe_pid_t *p = &u->pids[k];

			if (p->group < 0 || !marked[p->group])
				continue;
			p->attached = false;
			p->group = -1;
			ps->links_pending |= !u->all;
		}
	}
}

/* Take process pid out of u's processes, when it was last asked for
 * before generation before, marking the request that linked u for it in
 * marked[].  Returns whether it was. */
static bool site_drop_pid(dt_uprobe_ent_t *u, pid_t pid, uint32_t before,
			  bool *marked)
{
	for (uint32_t k = 0; k < u->npids; k++) {
		if (u->pids[k].pid != pid || u->pids[k].image >= before)
			continue;
		if (u->pids[k].attached && u->pids[k].group >= 0)
			marked[u->pids[k].group] = true;
		u->pids[k] = u->pids[--u->npids];
		return true;
	}
	return false;
}

/*
 * Process pid exec'ed or exited: the underlying probes linked for it
 * alone (pid probes, a USDT site of its own) that were last asked for
 * before generation before (UINT32_MAX: all) named its old image, and
 * would still trap where the new image maps the same file (libc),
 * finding no probe.  They lose the process, and the requests that linked
 * them for it are marked in marked[] (ps->ngroups entries) to close:
 * each request is one process's (one per program, file, process and
 * return flag), so no other process loses a link.  A site of the process
 * that such a request also links (one its new image asked for again) is
 * unlinked, to be linked again by the next attach pass, before the
 * caller closes the requests (dt_links_close_marked()), as
 * dt_attach_pending() does for the requests it retires.  How many sites
 * lost the process.
 */
uint32_t dt_links_drop_pid(struct dt_progset *ps, pid_t pid, uint32_t before,
			   bool *marked)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ps->nups; i++)
		n += site_drop_pid(&ps->ups[i], pid, before, marked);
	if (n > 0)
		groups_unlink(ps, marked);
	return n;
}

void dt_links_close_marked(dtrace_hdl_t *dtp, struct dt_progset *ps,
			   const bool *marked, int ngroups)
{
	for (int g = 0; g < ngroups; g++)
		if (marked[g])
			dt_bpf_links_close(dtp, &ps->groups[g]);
}

/*
 * An underlying probe linked for some processes and then for every
 * process would run its program twice per firing in those processes: the
 * links of their requests that hold it go.  The other underlying probes
 * of those requests get links of their own again (made before the old
 * ones close, so that none of their firings is lost).  Returns whether
 * some request is to be retired (marked in retire[]).
 */
static bool retire_mark(struct dt_progset *ps, bool *retire)
{
	bool any = false;

	for (uint32_t i = 0; i < ps->nups; i++) {
		dt_uprobe_ent_t *u = &ps->ups[i];

		for (uint32_t k = 0; u->all_attached && k < u->npids; k++)
			if (u->pids[k].group >= 0)
				any = retire[u->pids[k].group] = true;
	}
	if (any)
		groups_unlink(ps, retire);
	return any;
}

/* The requests holding the links of sites a user joined (site_join()),
 * marked in retire[], their sites unlinked: the next pass links them
 * again, a joined site to its new program, before the old links close.
 * Between the two, a firing there may run both programs.  Returns
 * whether some request is to be retired. */
static bool relink_mark(struct dt_progset *ps, bool *retire)
{
	bool any = false;

	if (!ps->relinks)
		return false;
	ps->relinks = false;
	for (uint32_t i = 0; i < ps->nups; i++) {
		dt_uprobe_ent_t *u = &ps->ups[i];

		if (u->relink)
			any |= link_groups_mark(u, retire);
		u->relink = false;
	}
	if (any)
		groups_unlink(ps, retire);
	return any;
}

/*
 * Sites a user joined with a semaphore that their links lack: the kernel
 * keeps one semaphore per uprobe and refuses a link with another while
 * one without it is there.  The requests holding the site's links are
 * marked in retire[]; the other sites they link are linked again first,
 * as relink_mark() does, but the site's own probes are held until those
 * links are closed (held).  What the site fires in between is not seen,
 * and a warning says so.  Returns whether some site is held.
 */
static bool sites_refresh_mark(dtrace_hdl_t *dtp, struct dt_progset *ps,
			       bool *retire)
{
	bool held = false;

	for (uint32_t i = 0; ps->relinks && i < ps->nups; i++) {
		dt_uprobe_ent_t *u = &ps->ups[i];
		bool any = false;
		char names[512];

		if (!u->refresh)
			continue;
		u->refresh = false;
		for (uint32_t j = dt_site_first(ps, u); j != 0;
		     j = ps->ups[j - 1].site_next) {
			any |= link_groups_mark(&ps->ups[j - 1], retire);
			ps->ups[j - 1].held = true;
		}
		held = true;
		if (!any)
			continue;
		site_names(dtp, ps, i, 0, names, sizeof(names));
		dt_warn(dtp, "%s: the uprobe at offset 0x%llx of %s is placed "
			"again with the semaphore at 0x%llx: what it fired "
			"meanwhile was not seen", names,
			(unsigned long long)u->offset, u->path,
			(unsigned long long)u->ref_ctr);
	}
	if (held)
		groups_unlink(ps, retire);
	return held;
}

/* The sites sites_refresh_mark() held may be linked now. */
static void sites_release(struct dt_progset *ps)
{
	for (uint32_t i = 0; i < ps->nups; i++)
		ps->ups[i].held = false;
}

/*
 * Make every link the underlying probes still need: one request per
 * (program, file, process, return flag), then retire the per-process
 * links that a link for every process superseded (retire_mark).  At
 * start (late false) a failure ends it; a late batch reports a failed
 * request as a warning and goes on.
 */
int dt_attach_pending(dtrace_hdl_t *dtp, struct dt_progset *ps, bool late)
{
	if (!ps->links_pending)
		return 0;	/* the trace loop's batches, most of the time */
	ps->links_pending = false;
	dt_attach_bufs_t b = {
		.offs = dt_zalloc(ps->nups * sizeof(uint64_t) + 8),
		.refs = dt_zalloc(ps->nups * sizeof(uint64_t) + 8),
		.cookies = dt_zalloc(ps->nups * sizeof(uint64_t) + 8),
		.errs = dt_zalloc(ps->nups * sizeof(int) + 8),
	};
	bool *retire = dt_zalloc((size_t)ps->ngroups + 1);
	int ngroups = ps->ngroups;
	bool held = sites_refresh_mark(dtp, ps, retire);
	bool retiring = relink_mark(ps, retire) || held;
	ps->links_pending = false;
	int rc = attach_pass(dtp, ps, late, &b);

	if (rc == 0 && retire_mark(ps, retire)) {
		ps->links_pending = false;
		rc = attach_pass(dtp, ps, late, &b);
		retiring = true;
	}
	for (int g = 0; retiring && g < ngroups; g++)
		if (retire[g])
			dt_bpf_links_close(dtp, &ps->groups[g]);
	if (held) {
		sites_release(ps);
		if (rc == 0)
			rc = attach_pass(dtp, ps, late, &b);
	}
	if (late && rc == 0)
		dt_debug(dtp, "uprobes linked while tracing: %d requests",
			 ps->ngroups - ngroups);
	free(retire);
	free(b.offs);
	free(b.refs);
	free(b.cookies);
	free(b.errs);
	return rc < 0 ? -1 : 0;
}
