/* SPDX-License-Identifier: MIT */
/*
 * dt_program.c: the program builder's entry points and the session.
 *
 * What the providers place (host->sites->uprobe, host->sites->perf, host->sites->event,
 * host->sites->overlay) is only recorded (dt_prog_sites.c); each entry point then
 * asks the one reconciliation step (dt_prog_reconcile.c) to make the kernel
 * match the record, which does nothing before tracing starts: there,
 * dt_prog_build_all() enables the probes and reconciles once, building,
 * loading and attaching everything.  While tracing, each host call is
 * reconciled at once, but within a batch of the trace loop
 * (dt_prog_batch_begin()/end()) links wait for its end.  Also here: start
 * and stop, the session's activity, soft probes fired, the providers'
 * poll() and provide() again.
 *
 * The files of the builder and the way they call one another:
 * dt_prog_impl.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dt_prog_impl.h"
#include "dt_instance.h"
#include "dt_plugcall.h"
#include "dt_sigwatch.h"

/*
 * What host->sites->uprobe(), host->sites->perf() and host->sites->event() answer, once
 * the site is recorded and reconciled (rc): the cookie; while tracing, for
 * a site kept without a program, -ENOENT (asking again says the same), and
 * for a link the kernel refused outside a batch, -EINVAL (warned).
 */
static int64_t site_answer(const struct dt_progset *ps, uint32_t cookie,
			   int rc)
{
	if (rc < 0)
		return -EINVAL;
	if (ps->reconciled && ps->ups[cookie - 1].prog < 0)
		return -ENOENT;
	return cookie;
}

int64_t dt_prog_uprobe(dtrace_hdl_t *dtp, dt_provider_t *pv,
		       const dtrace_uprobe_t *up)
{
	struct dt_progset *ps = dt_progset_of(dtp);

	if (up == NULL || up->path == NULL)
		return -EINVAL;
	uint32_t cookie = dt_site_record(dtp, ps, pv, up, NULL);
	/* the kernel may kill the process for it: watch for that */
	dt_sigwatch_cover(dtp, up->pid);
	return site_answer(ps, cookie, dt_reconcile(dtp, false));
}

int64_t dt_prog_perf_probe(dtrace_hdl_t *dtp, dt_provider_t *pv,
			   const dtrace_perfprobe_t *pp)
{
	struct dt_progset *ps = dt_progset_of(dtp);
	char name[128];

	if (pp == NULL)
		return -EINVAL;
	/* The name makes the event unique among the underlying probes. */
	snprintf(name, sizeof(name), "perf:%u:%llu:%llu:%d", pp->type,
		 (unsigned long long)pp->config,
		 (unsigned long long)pp->period, pp->cpu);
	dtrace_uprobe_t up = { .path = name, .kind = pp->kind,
			       .flags = pp->flags };
	uint32_t cookie = dt_site_record(dtp, ps, pv, &up, pp);
	return site_answer(ps, cookie, dt_reconcile(dtp, false));
}

/* A kernel event (dt_kevent.c): an underlying probe on a perf-like entry
 * named by the event, whose program and attachment its type decides. */
int64_t dt_prog_kernel_event(dtrace_hdl_t *dtp, dt_provider_t *pv,
			     const dtrace_event_t *ev)
{
	struct dt_progset *ps = dt_progset_of(dtp);

	if (ev->name == NULL || ev->name[0] == '\0')
		return -EINVAL;
	dtrace_perfprobe_t pp = { .kind = ev->kind, .cpu = -1 };
	dtrace_uprobe_t up = { .path = ev->name, .offset = (uint64_t)ev->type,
			       .kind = ev->kind, .flags = ev->flags };
	uint32_t cookie = dt_site_record(dtp, ps, pv, &up, &pp);
	ps->ups[cookie - 1].kev = ev->type;
	return site_answer(ps, cookie, dt_reconcile(dtp, false));
}

int dt_prog_overlay(dtrace_hdl_t *dtp, int64_t cookie, pid_t pid,
		    dtrace_probe_t *prp)
{
	struct dt_progset *ps = dt_progset_of(dtp);

	if (cookie <= 0 || (uint64_t)cookie > ps->nups || prp == NULL)
		return -EINVAL;
	int rc = dt_overlay_record(dtp, ps, (uint32_t)cookie, (uint32_t)pid,
				   prp);
	return rc < 0 ? rc : dt_reconcile(dtp, false);
}

uint32_t dt_prog_image_next(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dtp->progs;

	return ps == NULL ? 0 : ++ps->image;
}

/* What was recorded for process pid before generation before, taken
 * out: the probes of its overlays, and its own sites, whose requests
 * close once the kernel matches the record (so that a site the process
 * kept, which a closing request also linked, has its new link first).
 * Never called in a batch, which would leave the links for its end.
 * How many overlays and sites, in *novls and *nsites; 0 or what
 * dt_reconcile() returned. */
static int retire_process(dtrace_hdl_t *dtp, struct dt_progset *ps,
			  pid_t pid, uint32_t before, uint32_t *novls,
			  uint32_t *nsites)
{
	int ngroups = ps->ngroups, rc = 0;
	bool *closing = dt_zalloc((size_t)ngroups + 1);

	*novls = dt_overlays_retire(ps, (uint32_t)pid, before);
	*nsites = dt_links_drop_pid(ps, pid, before, closing);
	if (*novls + *nsites > 0)
		rc = dt_reconcile(dtp, false);
	dt_links_close_marked(dtp, ps, closing, ngroups);
	free(closing);
	return rc;
}

int dt_prog_retire_pid(dtrace_hdl_t *dtp, pid_t pid, uint32_t before)
{
	struct dt_progset *ps = dtp->progs;
	uint32_t novls, nsites;

	if (ps == NULL || !ps->reconciled || pid <= 0)
		return 0;
	uint64_t t0 = dt_now_ns();
	int rc = retire_process(dtp, ps, pid, before, &novls, &nsites);

	if (novls + nsites > 0)
		dt_debug(dtp, "process %d exec'ed: its overlays (%u) retired, "
			 "its own sites (%u) unlinked in %llu us", (int)pid,
			 novls, nsites,
			 (unsigned long long)(dt_now_ns() - t0) / 1000);
	return rc;
}

/* Whether process pid is still there (a zombie still is). */
static bool process_exists(uint32_t pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Process pid, found gone by two sweeps: its overlays out of the kernel's
 * map and their slots free, and the probes made for it alone removed. */
static void retire_gone(dtrace_hdl_t *dtp, struct dt_progset *ps,
			uint32_t pid)
{
	uint32_t novls, nsites;

	retire_process(dtp, ps, (pid_t)pid, UINT32_MAX, &novls, &nsites);
	uint32_t left = dt_overlays_free_pid(ps, pid);
	uint32_t nprobes = dt_probe_remove_pid(dtp, (pid_t)pid);
	dt_debug(dtp, "process %u exited: its overlays (%u) and probes (%u) "
		 "removed, its own sites (%u) unlinked%s", pid, novls, nprobes,
		 nsites, left ? "; some overlays wait to be written" : "");
}

static int pid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Add to ps->gone each process of t that has exited: t is one of the
 * tables keyed by pid, whose elements begin with it (ps->pid_index,
 * dtp->pid_probes). */
static void note_gone(struct dt_progset *ps, const dt_htab_t *t)
{
	const uint32_t *pid;

	for (uint32_t pos = 0;
	     t->esize != 0 && (pid = dt_htab_next(t, &pos)) != NULL;) {
		if (process_exists(*pid))
			continue;
		dt_array_room(ps->gone, ps->ngone, ps->gone_cap);
		ps->gone[ps->ngone++] = *pid;
	}
}

/* ps->gone sorted, each pid once (one with overlays and probes of its own
 * is found twice). */
static void gone_unique(struct dt_progset *ps)
{
	uint32_t n = 0;

	if (ps->ngone == 0)
		return;
	qsort(ps->gone, ps->ngone, sizeof(*ps->gone), pid_cmp);
	for (uint32_t i = 0; i < ps->ngone; i++)
		if (n == 0 || ps->gone[n - 1] != ps->gone[i])
			ps->gone[n++] = ps->gone[i];
	ps->ngone = n;
}

void dt_prog_sweep_gone(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dtp->progs;
	uint64_t now = dt_now_ns();

	if (ps == NULL || !ps->reconciled || now < ps->sweep_at)
		return;
	ps->sweep_at = now + DT_SWEEP_NS;
	/* Those found gone last time: their records were read since. */
	for (uint32_t i = 0; i < ps->ngone; i++)
		if (!process_exists(ps->gone[i]))
			retire_gone(dtp, ps, ps->gone[i]);
	ps->ngone = 0;

	note_gone(ps, &ps->pid_index);
	note_gone(ps, &dtp->pid_probes);
	gone_unique(ps);
}

static int enable_probe(dtrace_hdl_t *dtp, dtrace_probe_t *prp)
{
	dt_provider_t *pv = prp->provider;

	dt_plugin_call_t call = dt_plugin_enter(dtp, pv, "enable()");
	dtp->errmsg[0] = '\0';
	int rc = pv->ops->enable(pv, pv->data, prp);
	dt_plugin_leave(dtp, call);
	if (rc < 0) {
		if (dtp->errmsg[0] == '\0')
			dt_set_error(dtp, "failed to enable %s:%s:%s:%s: %s",
				     prp->prv, prp->mod, prp->fun, prp->prb,
				     strerror(-rc));
		return -1;
	}
	prp->enabled = true;
	return 0;
}

static void provider_failed(dtrace_hdl_t *dtp, dt_provider_t *pv,
			    const char *op, int rc);

/* Enable p, made by pv's provide() while tracing, when a clause wants
 * it: 1 if enabled.  A probe that cannot be enabled now is reported and
 * the others go on, as tracing does. */
static int enable_new(dtrace_hdl_t *dtp, dt_provider_t *pv, dtrace_probe_t *p)
{
	if (p == NULL || p->provider != pv || dt_cs_empty(&p->clauses))
		return 0;
	if (enable_probe(dtp, p) < 0) {
		dt_warn(dtp, "%s", dtp->errmsg);
		dtp->errmsg[0] = '\0';
		return 0;
	}
	return 1;
}

int dt_prog_provide_again(dtrace_hdl_t *dtp, dt_provider_t *pv)
{
	const dtrace_probedesc_t *const *descs;
	size_t ndescs = dt_provider_descs(dtp, pv, &descs);
	int n = 0;

	if (dtp->providing_again == 0)	/* not those given outside it */
		dtp->nreused = 0;
	uint32_t first = dtp->nprobes + 1, first_reused = dtp->nreused;
	dtp->providing_again++;
	for (size_t i = 0; i < ndescs; i++) {
		dt_plugin_call_t call = dt_plugin_enter(dtp, pv, "provide()");
		int rc = pv->ops->provide(pv, pv->data, descs[i]);
		dt_plugin_leave(dtp, call);
		if (rc < 0) {
			dtp->providing_again--;
			provider_failed(dtp, pv, "provide", rc);
			return -1;
		}
	}
	dtp->providing_again--;
	/* host_probe_insert() gave the new probes their clauses: those past
	 * the last id, and those given the id of a probe removed. */
	for (uint32_t id = first; id <= dtp->nprobes; id++)
		n += enable_new(dtp, pv, dtp->probes[id]);
	for (uint32_t i = first_reused; i < dtp->nreused; i++)
		n += enable_new(dtp, pv, dtp->probes[dtp->reused_ids[i]]);
	dtp->nreused = first_reused;
	return n;
}

int dt_prog_build_all(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dt_progset_of(dtp);

	for (uint32_t id = 1; id <= dtp->nprobes; id++) {
		dtrace_probe_t *p = dtp->probes[id];
		if (!dt_cs_empty(&p->clauses) && p != dtp->error_probe &&
		    enable_probe(dtp, p) < 0)
			return -1;
	}
	/* What the providers placed is the kernel's now. */
	ps->live = true;
	return dt_reconcile(dtp, false);
}

/* Whether pv placed an underlying probe with flag (BEGIN, END). */
static bool provider_has(dtrace_hdl_t *dtp, dt_provider_t *pv, unsigned flag)
{
	struct dt_progset *ps = dtp->progs;

	for (uint32_t i = 0; ps && i < ps->nups; i++)
		if (ps->ups[i].pv == pv && (ps->ups[i].flags & flag))
			return true;
	return false;
}

/* Say why pv's operation op failed when the plugin did not.  A soft probe
 * whose clauses read registers cannot be run directly (dt_prog_fire): the
 * plugin had to execute its probed instruction and did not. */
static void provider_failed(dtrace_hdl_t *dtp, dt_provider_t *pv,
			    const char *op, int rc)
{
	if (dtp->errmsg[0] != '\0')
		return;
	if (dtp->progs != NULL && dtp->progs->fire_refused == pv)
		dt_set_error(dtp, "plugin %s could not fire its probe: a clause "
			     "reads the registers of the probe site (uregs, "
			     "ucaller, ustack...), which a probe the plugin "
			     "fires itself does not have", pv->path);
	else
		dt_set_error(dtp, "plugin %s: %s failed: %s", pv->path, op,
			     strerror(-rc));
}

/* Call start() or stop() of the providers that placed probes with flag
 * (want true) or of the others (want false). */
static int call_providers(dtrace_hdl_t *dtp, bool start, unsigned flag,
			  bool want)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next) {
		int (*fn)(dtrace_provider_t *, void *) =
			start ? pv->ops->start : pv->ops->stop;
		if (fn == NULL || provider_has(dtp, pv, flag) != want)
			continue;
		dt_plugin_call_t call = dt_plugin_enter(dtp, pv,
						start ? "start()" : "stop()");
		int rc = fn(pv, pv->data);
		dt_plugin_leave(dtp, call);
		if (rc < 0) {
			provider_failed(dtp, pv, start ? "start" : "stop", rc);
			return -1;
		}
	}
	return 0;
}

/*
 * The session is active: so is every CPU's copy (cpu_active), unless an
 * exit() moved the session on meanwhile.  exit() lowers the copies after
 * it moved the activity, and the copies are raised before the activity is
 * read again: whichever order they run in, the copies end lowered.
 */
static void cpu_active_raise(dtrace_hdl_t *dtp)
{
	size_t off = offsetof(dt_mstate_t, cpu_active);

	if (dt_prog_activity(dtp) != DT_ACTIVITY_ACTIVE)
		return;
	dt_mstate_set_all(dtp->progs, off, 1);
	if (dt_prog_activity(dtp) != DT_ACTIVITY_ACTIVE)
		dt_mstate_set_all(dtp->progs, off, 0);
}

/*
 * BEGIN fires before any other probe: first the providers that fire BEGIN
 * (their programs activate the session), then, the session active (made so
 * here when no clause is on BEGIN), the providers that fire their probes
 * themselves at start.
 */
int dt_prog_start(dtrace_hdl_t *dtp)
{
	int rc = call_providers(dtp, true, DTRACE_UPROBE_BEGIN, true);

	if (rc == 0 && dt_prog_activity(dtp) == DT_ACTIVITY_INACTIVE) {
		dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
		uint32_t k = DT_STATE_ACTIVITY;
		uint64_t v = DT_ACTIVITY_ACTIVE;
		bpf_map_update_elem(st->fd, &k, &v, BPF_ANY);
	}
	if (rc == 0)
		cpu_active_raise(dtp);
	if (rc == 0)
		rc = call_providers(dtp, true, DTRACE_UPROBE_BEGIN, false);
	return rc;
}

int dt_prog_stop(dtrace_hdl_t *dtp)
{
	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
	uint32_t k = DT_STATE_ACTIVITY;
	uint64_t v = DT_ACTIVITY_DRAINING;

	bpf_map_update_elem(st->fd, &k, &v, BPF_ANY);
	dt_mstate_set_all(dtp->progs, offsetof(dt_mstate_t, cpu_active), 0);
	int rc = call_providers(dtp, false, DTRACE_UPROBE_END, false);
	if (call_providers(dtp, false, DTRACE_UPROBE_END, true) < 0)
		rc = -1;
	v = DT_ACTIVITY_STOPPED;
	bpf_map_update_elem(st->fd, &k, &v, BPF_ANY);
	return rc;
}

int dt_prog_activity(dtrace_hdl_t *dtp)
{
	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
	uint32_t k = DT_STATE_ACTIVITY;
	uint64_t v = 0;

	if (st == NULL || st->fd < 0 || bpf_map_lookup_elem(st->fd, &k, &v) < 0)
		return -1;
	return (int)v;
}

void dt_prog_fini(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dtp->progs;

	/* the watch the uprobes placed made (dt_sigwatch_cover()) */
	dt_sigwatch_fini(dtp);
	if (ps == NULL)
		return;
	if (ps->mst != NULL)
		munmap(ps->mst, ps->mst_len);
	/* Program fds belong to dt_bpf.c, which closes them. */
	for (int i = 0; i < ps->nprogs; i++) {
		dt_as_fini(&ps->progs[i].as);
		dt_cs_free(&ps->progs[i].clauses);
		dt_chain_free(&ps->progs[i]);
	}
	for (uint32_t i = 0; i < ps->nups; i++) {
		free(ps->ups[i].path);
		free(ps->ups[i].pids);
	}
	free(ps->ups);
	free(ps->id_path);
	free(ps->ovls);
	dt_htab_fini(&ps->ups_index);
	dt_htab_fini(&ps->site_index);
	dt_htab_fini(&ps->ovls_index);
	dt_htab_fini(&ps->pid_index);
	free(ps->progs);
	for (int g = 0; g < ps->ngroups; g++)
		free(ps->groups[g].fds);	/* closed by dt_bpf.c */
	free(ps->groups);
	free(ps->refused);
	free(ps->queued_ups);
	free(ps->queued_ovls);
	free(ps->gone);
	free(ps);
	dtp->progs = NULL;
}

void dt_prog_batch_begin(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dt_progset_of(dtp);

	if (!ps->reconciled || ps->batching)
		return;
	ps->batching = true;
	/* Before a provider may create probes: those the programs made. */
	dt_inst_import(dtp);
}

void dt_prog_batch_end(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dtp->progs;

	if (ps == NULL || !ps->batching)
		return;
	ps->batching = false;
	dt_reconcile(dtp, true);
}

int dt_prog_poll_providers(dtrace_hdl_t *dtp)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next) {
		if (pv->ops->poll == NULL)
			continue;
		dt_plugin_call_t call = dt_plugin_enter(dtp, pv, "poll()");
		dt_prog_batch_begin(dtp);
		int rc = pv->ops->poll(pv, pv->data);
		dt_prog_batch_end(dtp);
		dt_plugin_leave(dtp, call);
		if (rc < 0) {
			if (dtp->errmsg[0] == '\0')
				dt_set_error(dtp, "provider %s failed: %s",
					     pv->ops->name, strerror(-rc));
			return -1;
		}
	}
	/* The refused links whose time has come, asked for again. */
	if (dt_refused_due(dtp)) {
		dt_prog_batch_begin(dtp);
		dt_prog_batch_end(dtp);
	}
	return 0;
}

int dt_prog_fire(dtrace_hdl_t *dtp, int64_t cookie)
{
	struct dt_progset *ps = dtp->progs;
	uint64_t ctx[1] = { 0 };

	if (ps == NULL || cookie <= 0 || (uint64_t)cookie > ps->nups)
		return -EINVAL;
	dt_uprobe_ent_t *u = &ps->ups[cookie - 1];
	if (u->prog < 0 || ps->progs[u->prog].soft_cookie != cookie) {
		ps->fire_refused = u->pv;
		return -ENOTSUP;
	}
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = ctx,
		    .ctx_size_in = sizeof(ctx));
	if (bpf_prog_test_run_opts(ps->progs[u->prog].fd, &opts) < 0) {
		int err = -errno;
		dt_warn(dtp, "failed to run the program of %s: %s",
			u->pv->ops->name, strerror(errno));
		return err;
	}
	return 0;
}
