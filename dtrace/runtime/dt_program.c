/* SPDX-License-Identifier: MIT */
/*
 * dt_program.c: the program builder's entry points: what the providers
 * place (host->uprobe, host->perf_probe, host->event, host->overlay), the
 * build at start, start and stop, the batches of the trace loop, soft
 * probes fired.
 *
 * The files of the builder and the way they call one another:
 * dt_prog_impl.h.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "dt_prog_impl.h"
#include "dt_cg.h"
#include "dt_instance.h"
#include "dt_plugcall.h"
#include "dt_sigwatch.h"


static bool site_join(dtrace_hdl_t *dtp, struct dt_progset *ps,
		      dt_uprobe_ent_t *u, dt_provider_t *pv,
		      const dtrace_uprobe_t *up);
static int64_t uprobe_attach_late(dtrace_hdl_t *dtp, struct dt_progset *ps,
				  uint32_t cookie);

/*
 * Find the underlying probe up, or add it (on a perf event when pp is not
 * NULL), and make it fire in up->pid.  Returns its cookie (index + 1);
 * *more says whether it needs a link it has not got yet.  A uprobe is
 * shared by the providers at its site, also by one that comes after its
 * program was built (site_join()); one that cannot take pv's trampoline
 * any more leaves pv a probe of its own (solo).
 */
static uint32_t uprobe_find_or_add(dtrace_hdl_t *dtp, struct dt_progset *ps,
				   dt_provider_t *pv, const dtrace_uprobe_t *up,
				   const dtrace_perfprobe_t *pp, bool *more)
{
	dt_uprobe_ent_t key = {
		.flags = up->flags, .path = (char *)up->path,
		.offset = up->offset,
		.solo_pv = pp ? pv : NULL, .solo_kind = pp ? up->kind : 0,
	};
	dt_uprobe_file_id(ps, &key);
	uint32_t *slot = dt_uprobe_slot(ps, &key);

	if (*slot != 0 && !dt_site_user_fits(&ps->ups[*slot - 1], pv, up->kind) &&
	    !site_join(dtp, ps, &ps->ups[*slot - 1], pv, up)) {
		key.solo_pv = pv;
		key.solo_kind = up->kind;
		slot = dt_uprobe_slot(ps, &key);
	}
	if (*slot == 0) {
		if (ps->nups == ps->ups_cap) {
			ps->ups_cap = ps->ups_cap ? ps->ups_cap * 2 : 64;
			ps->ups = dt_realloc(ps->ups,
					     ps->ups_cap * sizeof(*ps->ups));
		}
		ps->ups[ps->nups] = (dt_uprobe_ent_t){
			.solo_pv = key.solo_pv, .solo_kind = key.solo_kind,
			.flags = up->flags,
			.path = dt_strdup(up->path), .offset = up->offset,
			.dev = key.dev, .ino = key.ino,
			.ref_ctr = up->ref_ctr_offset, .prog = -1,
			.all_group = -1, .perf = pp != NULL,
			.pp = pp ? *pp : (dtrace_perfprobe_t){ 0 },
		};
		*slot = ++ps->nups;
		dt_site_user_add(ps, &ps->ups[ps->nups - 1], pv, up->kind);
		dt_site_link(dtp, ps, ps->nups - 1);
	} else {
		dt_uprobe_ent_t *u = &ps->ups[*slot - 1];

		dt_site_user_add(ps, u, pv, up->kind);
		if (u->ref_ctr == 0 && up->ref_ctr_offset != 0 && !ps->built)
			dt_site_ref_ctr_set(ps, u, up->ref_ctr_offset);
	}
	*more = dt_uprobe_add_pid(&ps->ups[*slot - 1], pp ? 0 : up->pid);
	ps->links_pending |= *more;
	return *slot;
}

/* What host->uprobe() and host->perf_probe() answer: while tracing, an
 * underlying probe that needs a new link (new, or for another process, or
 * to the program of a user that joined it) is attached at once, and one
 * kept without a program says so again. */
static int64_t uprobe_result(dtrace_hdl_t *dtp, struct dt_progset *ps,
			     uint32_t cookie, bool more)
{
	if (!ps->built)
		return cookie;
	if (more || ps->ups[cookie - 1].relink) {
		dt_generic_only(dtp);
		return uprobe_attach_late(dtp, ps, cookie);
	}
	return ps->ups[cookie - 1].prog < 0 ? -ENOENT : (int64_t)cookie;
}

int64_t dt_prog_uprobe(dtrace_hdl_t *dtp, dt_provider_t *pv,
		       const dtrace_uprobe_t *up)
{
	struct dt_progset *ps = dt_progset_of(dtp);
	bool added;

	if (up == NULL || up->path == NULL)
		return -EINVAL;
	uint32_t cookie = uprobe_find_or_add(dtp, ps, pv, up, NULL, &added);
	/* the kernel may kill the process for it: watch for that */
	dt_sigwatch_cover(dtp, up->pid);
	return uprobe_result(dtp, ps, cookie, added);
}

int64_t dt_prog_perf_probe(dtrace_hdl_t *dtp, dt_provider_t *pv,
			   const dtrace_perfprobe_t *pp)
{
	struct dt_progset *ps = dt_progset_of(dtp);
	char name[128];
	bool added;

	if (pp == NULL)
		return -EINVAL;
	/* The name makes the event unique among the underlying probes. */
	snprintf(name, sizeof(name), "perf:%u:%llu:%llu:%d", pp->type,
		 (unsigned long long)pp->config,
		 (unsigned long long)pp->period, pp->cpu);
	dtrace_uprobe_t up = { .path = name, .kind = pp->kind,
			       .flags = pp->flags };
	uint32_t cookie = uprobe_find_or_add(dtp, ps, pv, &up, pp, &added);
	return uprobe_result(dtp, ps, cookie, added);
}

/* A kernel event (dt_kevent.c): an underlying probe on a perf-like entry
 * named by the event, whose program and attachment its type decides. */
int64_t dt_prog_kernel_event(dtrace_hdl_t *dtp, dt_provider_t *pv,
			     const dtrace_event_t *ev)
{
	struct dt_progset *ps = dt_progset_of(dtp);
	bool added;

	if (ev->name == NULL || ev->name[0] == '\0')
		return -EINVAL;
	dtrace_perfprobe_t pp = { .kind = ev->kind, .cpu = -1 };
	dtrace_uprobe_t up = { .path = ev->name, .offset = (uint64_t)ev->type,
			       .kind = ev->kind, .flags = ev->flags };
	uint32_t cookie = uprobe_find_or_add(dtp, ps, pv, &up, &pp, &added);
	ps->ups[cookie - 1].kev = ev->type;
	return uprobe_result(dtp, ps, cookie, added);
}

/* An overlay of a site that a user joined: the program linked there now
 * may not know the trampoline of its new entry (a program of one user
 * runs every entry with its own), so the map gets it once the site is
 * linked to its new program (overlays_flush()). */
static int overlay_defer(struct dt_progset *ps, dt_overlay_ent_t *o)
{
	if (!o->deferred)
		ps->ndeferred++;
	o->deferred = true;
	return 0;
}

int dt_prog_overlay(dtrace_hdl_t *dtp, int64_t cookie, pid_t pid,
		    dtrace_probe_t *prp)
{
	struct dt_progset *ps = dt_progset_of(dtp);
	dt_overlay_ent_t *o = NULL;

	if (cookie <= 0 || (uint64_t)cookie > ps->nups || prp == NULL)
		return -EINVAL;
	dt_overlay_ent_t key = { .pid = (uint32_t)pid,
				 .cookie = (uint32_t)cookie };
	dt_index_grow(&ps->ovls_index, ps->novls, dt_ovls_hash_of, ps);
	uint32_t *slot = dt_index_slot(&ps->ovls_index,
		dt_overlay_hash(key.pid, key.cookie), dt_ovls_eq, ps, &key);
	if (*slot != 0) {
		o = &ps->ovls[*slot - 1];
	} else {
		if (ps->novls == ps->ovls_cap) {
			ps->ovls_cap = ps->ovls_cap ? ps->ovls_cap * 2 : 64;
			ps->ovls = dt_realloc(ps->ovls,
					ps->ovls_cap * sizeof(*ps->ovls));
		}
		o = &ps->ovls[ps->novls++];
		*o = key;
		*slot = ps->novls;
		o->cookie_next = ps->ups[cookie - 1].ovl_first;
		ps->ups[cookie - 1].ovl_first = ps->novls;
	}
	for (uint32_t i = 0; i < o->n; i++)
		if (o->prids[i] == prp->id)
			return 0;
	if (o->n == DT_OVERLAY_MAX) {
		dt_warn(dtp, "more than %d probes on one site: %s:%s:%s:%s "
			"left out", DT_OVERLAY_MAX, prp->prv, prp->mod,
			prp->fun, prp->prb);
		return -E2BIG;
	}
	if (ps->built)
		dt_generic_only(dtp);
	o->users[o->n] = dt_site_user_of(&ps->ups[cookie - 1], prp->provider);
	o->prids[o->n++] = prp->id;
	if (ps->built && dt_probedesc_store(dtp, prp) < 0)
		return -errno;
	if (ps->built && ps->ups[cookie - 1].relink)
		return overlay_defer(ps, o);
	return ps->built ? dt_overlay_write(dtp, o) : 0;
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

/* Ask again for the refused links whose time has come. */
static void refused_retry(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dtp->progs;

	if (ps == NULL || ps->nrefused == 0 || dt_now_ns() < ps->retry_at)
		return;
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
	dt_prog_batch_begin(dtp);
	dt_prog_batch_end(dtp);
}

/*
 * (pv, kind) comes to the underlying probe u after its program was built:
 * while tracing, a process that a pid probe of every process covers
 * starts, with a USDT probe on the pid probe's instruction, say.  It
 * joins u's users, last, so that the overlay entries written so far keep
 * their trampoline's index, and u gets a program of its new users; the
 * next dt_attach_pending() moves u's links to it (relink).  When pv names a
 * semaphore that u's links lack, every link at the site is made again
 * with it (refresh, sites_refresh()).  Returns false when u cannot take
 * pv: pv then gets an underlying probe of its own there.
 */
static bool site_join(dtrace_hdl_t *dtp, struct dt_progset *ps,
		      dt_uprobe_ent_t *u, dt_provider_t *pv,
		      const dtrace_uprobe_t *up)
{
	int old = u->prog, prog;

	if (!ps->built || old < 0 || u->perf || u->nusers == DT_SITE_USERS ||
	    (u->flags & DT_PROG_FLAGS) ||
	    (u->ref_ctr != 0 && up->ref_ctr_offset != 0 &&
	     u->ref_ctr != up->ref_ctr_offset))
		return false;
	u->users[u->nusers] = (dt_site_user_t){ pv, up->kind };
	u->stamp[u->nusers++] = ++ps->stamp;
	if ((prog = dt_site_program(dtp, ps, u, old)) < 0) {
		u->nusers--;
		return false;
	}
	u->prog = prog;
	u->relink = true;
	ps->relinks = true;
	ps->links_pending = true;
	if (u->ref_ctr == 0 && up->ref_ctr_offset != 0) {
		dt_site_ref_ctr_set(ps, u, up->ref_ctr_offset);
		u->refresh = true;
	}
	return true;
}

/* An underlying probe placed while tracing, or made to fire in one more
 * process: attach it at once to the program of its kind, built now if need
 * be. */
static int64_t uprobe_attach_late(dtrace_hdl_t *dtp, struct dt_progset *ps,
				  uint32_t cookie)
{
	dt_uprobe_ent_t *u = &ps->ups[cookie - 1];
	int prog = u->prog >= 0 ? u->prog : dt_kprog_lookup(ps, u);

	if (prog < 0 && (prog = dt_late_program(dtp, ps, u)) < 0)
		return -ENOENT;	/* kept, unattached: asking again says the same */
	u->prog = prog;
	if (ps->batching)
		return cookie;	/* dt_prog_batch_end() attaches it */
	if (dt_attach_pending(dtp, ps, false) < 0) {
		int err = -EINVAL;
		dt_warn(dtp, "%s", dtp->errmsg);
		dtp->errmsg[0] = '\0';
		return err;
	}
	return cookie;
}

static void provider_failed(dtrace_hdl_t *dtp, dt_provider_t *pv,
			    const char *op, int rc);

int dt_prog_provide_again(dtrace_hdl_t *dtp, dt_provider_t *pv)
{
	uint32_t first = dtp->nprobes + 1;
	int n = 0;

	for (int c = 0; c < dtp->nclauses; c++) {
		for (int i = 0; i < dtp->clause_ndescs[c]; i++) {
			dt_plugin_call_t call = dt_plugin_enter(dtp, pv,
								"provide()");
			int rc = pv->ops->provide(pv, pv->data,
						  &dtp->clause_descs[c][i]);
			dt_plugin_leave(dtp, call);
			if (rc < 0) {
				provider_failed(dtp, pv, "provide", rc);
				return -1;
			}
		}
	}
	/* host_probe_insert() gave the new probes their clauses.  A probe that
	 * cannot be enabled now is reported and the others go on, as
	 * tracing does. */
	for (uint32_t id = first; id <= dtp->nprobes; id++) {
		dtrace_probe_t *p = dtp->probes[id];
		if (p->provider != pv || dt_cs_empty(&p->clauses))
			continue;
		if (enable_probe(dtp, p) < 0) {
			dt_warn(dtp, "%s", dtp->errmsg);
			dtp->errmsg[0] = '\0';
			continue;
		}
		n++;
	}
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
	dt_group_programs(dtp, ps);

	/* Room for overlays that providers add while tracing (libraries
	 * and processes that appear); entries are allocated on use. */
	uint32_t novl = ps->novls < 32768 ? 65536 : ps->novls * 2;
	uint32_t ninst = 0;
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next)
		if (pv->templates)	/* room for dt_instance.c */
			ninst = (uint32_t)dtp->opt.procprobes;
	dtp->inst_max = ninst;
	if (ninst)
		dtp->inst_base = dtp->nprobes + 1 + DT_LATE_PROBES_MAX;
	if (!dt_bpf_map(dtp, "overlay", BPF_MAP_TYPE_HASH, 8,
			dt_ovl_size(dt_clause_words(dtp->nclauses)), novl) ||
	    !dt_bpf_map(dtp, "probedesc", BPF_MAP_TYPE_ARRAY, 4,
			sizeof(dt_probedesc_rt_t),
			dtp->nprobes + 1 + DT_LATE_PROBES_MAX + ninst) ||
	    (ninst && dt_inst_maps_declare(dtp) < 0))
		return -1;
	dtrace_map_t *mst = dt_bpf_map_find(dtp, "mstate");
	if (mst->vsize < dt_cg_mstate_size(dtp))
		mst->vsize = dt_cg_mstate_size(dtp);
	if (dt_bpf_maps_create(dtp) < 0 || dt_mstate_map(dtp, ps) < 0)
		return -1;
	if (dt_fill_maps(dtp, ps) < 0 || dt_load_programs(dtp, ps) < 0 ||
	    dt_attach_pending(dtp, ps, false) < 0)
		return -1;
	ps->built = true;
	return 0;
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
	free(ps->ups_index.slots);
	free(ps->site_index.slots);
	free(ps->ovls_index.slots);
	free(ps->progs);
	for (int g = 0; g < ps->ngroups; g++)
		free(ps->groups[g].fds);	/* closed by dt_bpf.c */
	free(ps->groups);
	free(ps->refused);
	free(ps);
	dtp->progs = NULL;
}

void dt_prog_batch_begin(dtrace_hdl_t *dtp)
{
	struct dt_progset *ps = dt_progset_of(dtp);

	if (!ps->built || ps->batching)
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
	dt_attach_pending(dtp, ps, true);
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
	refused_retry(dtp);
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
