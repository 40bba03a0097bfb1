/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_reconcile.c: the kernel made to match what the session wants.
 *
 * The host entry points (dt_program.c) only record what the providers
 * place: underlying probes, the processes they fire in, the providers that
 * share them, overlays (dt_prog_sites.c); what changed waits on two queues
 * there.  One step, dt_reconcile(), makes the kernel match the record:
 *
 *	at start	(the first time, from dt_prog_build_all()) the maps
 *			sized and created, every underlying probe given its
 *			program, the maps filled, the programs built and
 *			loaded, the links made;
 *	while tracing	(after each host call, and at the end of a batch)
 *			the queued sites given a program (one built now for
 *			a kind that had none, or for a site a provider
 *			joined), the queued overlays and the names of their
 *			new probes written, then, outside a batch, the links
 *			made and retired (dt_prog_attach.c) and the overlays
 *			held back meanwhile written.
 *
 * Before dt_prog_build_all() it does nothing: the clauses are still being
 * compiled, and start will do it all.  Whatever a host call changed, the
 * programs built for one overlay go generic first (dt_generic_only()).
 */
#include <errno.h>
#include <stdlib.h>

#include "dt_prog_impl.h"
#include "dt_cg.h"
#include "dt_instance.h"

/* Whether the ids of probes removed may be given to others: nothing the
 * session keeps names a probe by its id but the records, which are read
 * before a probe goes; but an aggregation keyed by a probe's names keeps
 * its id (dt_rec.h), and a speculation holds records until committed. */
static bool ids_reusable(dtrace_hdl_t *dtp)
{
	if (dt_bpf_map_find(dtp, "spec") != NULL)
		return false;
	for (int i = 0; i < dtp->naggs; i++) {
		const dt_aggdesc_t *d = dtp->aggs[i];

		if (d != NULL && (d->kprobe != NULL || d->byprid != NULL))
			return false;
	}
	return true;
}

/* The room for probes made while tracing: DT_LATE_PROBES_MAX, or for a
 * test DTRACE_LATE_PROBES (a few, to reach past it with a few processes). */
static uint32_t late_room(void)
{
	const char *v = getenv("DTRACE_LATE_PROBES");
	long n = v ? strtol(v, NULL, 10) : 0;

	return n > 0 && n < DT_LATE_PROBES_MAX ? (uint32_t)n : DT_LATE_PROBES_MAX;
}

/* The session's maps sized for the probes enabled and created, the
 * mstate mapped.  0 or -1 after dt_set_error(). */
static int maps_create(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	/* Room for overlays that providers add while tracing (libraries
	 * and processes that appear); entries are allocated on use. */
	uint32_t novl = ps->novls < 32768 ? 65536 : ps->novls * 2;
	uint32_t ninst = 0, late = late_room();
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next)
		if (pv->templates)	/* room for dt_instance.c */
			ninst = (uint32_t)dtp->opt.procprobes;
	dtp->inst_max = ninst;
	if (ninst)
		dtp->inst_base = dtp->nprobes + 1 + late;
	dt_probe_late_room(dtp, dtp->nprobes + 1 + late, ids_reusable(dtp));
	if (!dt_bpf_map(dtp, "overlay", BPF_MAP_TYPE_HASH, 8,
			dt_ovl_size(dt_clause_words(dtp->nclauses)), novl) ||
	    !dt_bpf_map(dtp, "probedesc", BPF_MAP_TYPE_ARRAY, 4,
			sizeof(dt_probedesc_rt_t),
			dtp->nprobes + 1 + late + ninst) ||
	    (ninst && dt_inst_maps_declare(dtp) < 0))
		return -1;
	dtrace_map_t *mst = dt_bpf_map_find(dtp, "mstate");
	if (mst->vsize < dt_cg_mstate_size(dtp))
		mst->vsize = dt_cg_mstate_size(dtp);
	if (dt_bpf_maps_create(dtp) < 0 || dt_mstate_map(dtp, ps) < 0)
		return -1;
	return 0;
}

/* The queues emptied: at start, everything recorded so far is what the
 * kernel gets. */
static void queues_clear(struct dt_progset *ps)
{
	for (uint32_t i = 0; i < ps->nqueued_ups; i++)
		ps->ups[ps->queued_ups[i] - 1].queued = false;
	for (uint32_t i = 0; i < ps->nqueued_ovls; i++) {
		dt_overlay_ent_t *o = &ps->ovls[ps->queued_ovls[i] - 1];

		o->queued = false;
		o->described = o->n;
	}
	ps->nqueued_ups = ps->nqueued_ovls = 0;
}

/* The first reconciliation, at start: everything.  0 or -1 after
 * dt_set_error(). */
static int reconcile_start(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	dt_group_programs(dtp, ps);
	if (maps_create(dtp, ps) < 0 || dt_fill_maps(dtp, ps) < 0 ||
	    dt_load_programs(dtp, ps) < 0)
		return -1;
	queues_clear(ps);
	if (dt_attach_pending(dtp, ps, false) < 0)
		return -1;
	ps->reconciled = true;
	return 0;
}

/* A site that a user joined (site_join() in dt_prog_sites.c) gets the
 * program of its new users; its links move to it at the next attach
 * (relink).  When none can be made (dt_site_program() said why), the
 * newcomer is left out: its probes there read their arguments with the
 * trampoline of the site's first user. */
static void site_join_place(dtrace_hdl_t *dtp, struct dt_progset *ps,
			    dt_uprobe_ent_t *u)
{
	int prog = dt_site_program(dtp, ps, u, u->prog);

	u->joined = false;
	if (prog < 0) {
		u->nusers--;
		return;
	}
	u->prog = prog;
	u->relink = true;
	ps->relinks = true;
	ps->links_pending = true;
}

/* The program of queued site u: its own, one of its kind, or one built now
 * (a kind that had no underlying probe when tracing started).  A site
 * that gets none is kept, unattached (host->sites->uprobe() says -ENOENT). */
static void site_place(dtrace_hdl_t *dtp, struct dt_progset *ps,
		       dt_uprobe_ent_t *u)
{
	u->queued = false;
	if (u->joined) {
		site_join_place(dtp, ps, u);
		return;
	}
	if (u->prog < 0)
		u->prog = dt_kprog_lookup(ps, u);
	if (u->prog < 0)
		u->prog = dt_late_program(dtp, ps, u);
}

/* An overlay of a site that a user joined: the program linked there now
 * may not know the trampoline of its new entry (a program of one user
 * runs every entry with its own), so the map gets it once the site is
 * linked to its new program (overlays_flush()). */
static void overlay_defer(struct dt_progset *ps, dt_overlay_ent_t *o)
{
	if (!o->deferred)
		ps->ndeferred++;
	o->deferred = true;
}

/* The queued overlays written, each with the names of the probes new in
 * it; one of a site whose links move to a new program waits for them
 * (overlays_flush()).  0 or the first error (-errno). */
static int overlays_sync(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	int err = 0;

	for (uint32_t i = 0; i < ps->nqueued_ovls; i++) {
		dt_overlay_ent_t *o = &ps->ovls[ps->queued_ovls[i] - 1];
		int rc = 0;

		o->queued = false;
		for (; o->described < o->n && rc == 0; o->described++)
			if (dt_probedesc_store(dtp, dt_probe_by_id(dtp,
					o->prids[o->described])) < 0)
				rc = -errno;
		if (rc == 0 && ps->ups[o->cookie - 1].relink)
			overlay_defer(ps, o);
		else if (rc == 0)
			rc = dt_overlay_write(dtp, o);
		if (err == 0)
			err = rc;
	}
	ps->nqueued_ovls = 0;
	return err;
}

/* The overlays held back while their sites were linked again. */
static void overlays_flush(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	for (uint32_t i = 0; ps->ndeferred > 0 && i < ps->novls; i++) {
		dt_overlay_ent_t *o = &ps->ovls[i];

		if (!o->deferred)
			continue;
		o->deferred = false;
		ps->ndeferred--;
		dt_overlay_write(dtp, o);
	}
}

/* What tracing changed, made so: the queued sites and overlays, then,
 * outside a batch, the links.  0, or -errno of a failed overlay write,
 * or -EINVAL when a link failed (warned; at the end of a batch, each
 * refused site is reported instead). */
static int reconcile_late(dtrace_hdl_t *dtp, struct dt_progset *ps,
			  bool batch_end)
{
	if (ps->nqueued_ups > 0 || ps->nqueued_ovls > 0)
		dt_generic_only(dtp);
	for (uint32_t i = 0; i < ps->nqueued_ups; i++)
		site_place(dtp, ps, &ps->ups[ps->queued_ups[i] - 1]);
	ps->nqueued_ups = 0;
	int err = overlays_sync(dtp, ps);
	if (ps->batching)
		return err;	/* dt_prog_batch_end() links */
	/* At the end of a batch, each refused site said why. */
	if (dt_attach_pending(dtp, ps, batch_end) < 0 && !batch_end) {
		dt_warn(dtp, "%s", dtp->errmsg);
		dtp->errmsg[0] = '\0';
		err = -EINVAL;
	}
	overlays_flush(dtp, ps);
	return err;
}

int dt_reconcile(dtrace_hdl_t *dtp, bool batch_end)
{
	struct dt_progset *ps = dtp->progs;

	if (ps == NULL || !ps->live)
		return 0;
	if (!ps->reconciled)
		return reconcile_start(dtp, ps);
	return reconcile_late(dtp, ps, batch_end);
}
