/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_maps.c: the session's maps as the programs read them.
 *
 * The maps every program uses, declared before the clauses are compiled
 * and created with the programs; the mstate mapped, where each CPU's
 * copies of the session's state live; the overlay map's values (each
 * overlay's probes and the clauses enabled on them); the names of the
 * probes (probeprov...), written at start and for each probe overlaid
 * while tracing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dt_prog_impl.h"
#include "dt_cg.h"

int dt_prog_maps_declare(dtrace_hdl_t *dtp)
{
	uint64_t bufsize = dtp->opt.bufsize;
	long page = sysconf(_SC_PAGESIZE);
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus <= 0) {
		dt_set_error(dtp, "cannot count the CPUs: %s", strerror(-ncpus));
		return -1;
	}

	/* The ring buffer size must be a power of two number of pages. */
	uint64_t rb = (uint64_t)page;
	while (rb < bufsize)
		rb <<= 1;
	if (!dt_bpf_map(dtp, "output", BPF_MAP_TYPE_RINGBUF, 0, 0,
			(uint32_t)rb) ||
	    !dt_bpf_map(dtp, "state", BPF_MAP_TYPE_ARRAY, 4, 8,
			DT_STATE_NSLOTS) ||
	    !dt_bpf_map(dtp, "cpuinfo", BPF_MAP_TYPE_PERCPU_ARRAY, 4,
			sizeof(dt_cpuinfo_t), 1) ||
	    !dt_bpf_map(dtp, "mstate", BPF_MAP_TYPE_ARRAY, 4,
			sizeof(dt_mstate_t), (uint32_t)ncpus))
		return -1;
	dt_bpf_map_find(dtp, "mstate")->flags = BPF_F_MMAPABLE;
	return 0;
}

/* Map the "mstate" map, where each CPU's copies of the session's state
 * live (dt_mstate_t's cpu_active, cpu_generic).  Returns 0 or -1. */
int dt_mstate_map(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	dtrace_map_t *m = dt_bpf_map_find(dtp, "mstate");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t stride = ((size_t)m->vsize + 7) & ~(size_t)7; /* the kernel's */
	size_t len = (stride * m->nentries + page - 1) / page * page;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd, 0);

	if (p == MAP_FAILED) {
		dt_set_error(dtp, "failed to map the BPF map mstate: %s",
			     strerror(errno));
		return -1;
	}
	ps->mst = p;
	ps->mst_len = len;
	ps->mst_stride = stride;
	ps->mst_ncpus = m->nentries;
	return 0;
}

/* Every CPU's copy of a state field (at off in dt_mstate_t) becomes v. */
void dt_mstate_set_all(struct dt_progset *ps, size_t off, uint32_t v)
{
	for (uint32_t i = 0; ps != NULL && ps->mst != NULL &&
			     i < ps->mst_ncpus; i++)
		__atomic_store_n((uint32_t *)(ps->mst + i * ps->mst_stride +
					      off), v, __ATOMIC_SEQ_CST);
}

/* From now on, programs built for one overlay take the general path. */
void dt_generic_only(dtrace_hdl_t *dtp)
{
	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
	uint32_t k = DT_STATE_GENERIC;
	uint64_t v = 1;

	if (st != NULL && st->fd >= 0 &&
	    bpf_map_update_elem(st->fd, &k, &v, BPF_ANY) < 0)
		dt_warn(dtp, "failed to update the session's state: %s",
			strerror(errno));
	dt_mstate_set_all(dtp->progs, offsetof(dt_mstate_t, cpu_generic), 1);
}

static void copy_name(char *dst, size_t len, const char *src)
{
	strncpy(dst, src, len - 1);
	dst[len - 1] = '\0';
}


/* The names of probe p as the programs read them. */
static void probedesc_value(const dtrace_probe_t *p, dt_probedesc_rt_t *d)
{
	memset(d, 0, sizeof(*d));
	copy_name(d->prv, sizeof(d->prv), p->prv);
	copy_name(d->mod, sizeof(d->mod), p->mod);
	copy_name(d->fun, sizeof(d->fun), p->fun);
	copy_name(d->prb, sizeof(d->prb), p->prb);
}

/* The names probeprov.. read at run time for probe p; a probe created
 * while tracing gets its entry when first overlaid (room for
 * DT_LATE_PROBES_MAX of them, then for those given the id of a probe
 * removed, dt_probe_late_room(); beyond, its names read as ""). */
int dt_probedesc_store(dtrace_hdl_t *dtp, const dtrace_probe_t *p)
{
	dtrace_map_t *pd = dt_bpf_map_find(dtp, "probedesc");
	dt_probedesc_rt_t d;
	uint32_t id = p->id;

	/* past the late probes' room: the programs' own (dt_instance.c) */
	if (pd == NULL || pd->fd < 0 || id >= pd->nentries ||
	    (dtp->inst_base != 0 && id >= dtp->inst_base))
		return 0;
	probedesc_value(p, &d);
	return bpf_map_update_elem(pd->fd, &id, &d, BPF_ANY);
}

/* The names of every probe enabled, and of ERROR, written in batches of
 * DT_MAP_BATCH.  0 or -errno. */
static int probedescs_write(dtrace_hdl_t *dtp)
{
	dtrace_map_t *pd = dt_bpf_map_find(dtp, "probedesc");
	uint32_t *ids = dt_zalloc(DT_MAP_BATCH * sizeof(*ids));
	dt_probedesc_rt_t *names = dt_zalloc(DT_MAP_BATCH * sizeof(*names));
	uint32_t k = 0;
	int err = 0;

	for (uint32_t id = 1; id <= dtp->nprobes && err == 0; id++) {
		const dtrace_probe_t *p = dtp->probes[id];
		if (!p->enabled && p != dtp->error_probe)
			continue;
		ids[k] = id;
		probedesc_value(p, &names[k]);
		if (++k == DT_MAP_BATCH) {
			err = dt_bpf_map_update_many(pd, ids, names, k);
			k = 0;
		}
	}
	if (err == 0)
		err = dt_bpf_map_update_many(pd, ids, names, k);
	free(ids);
	free(names);
	return err;
}

static int overlays_write(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o,
			  uint32_t n);

int dt_fill_maps(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
	int err;

	if (overlays_write(dtp, ps->ovls, ps->novls) < 0)
		return -1;
	if ((err = probedescs_write(dtp)) < 0) {
		errno = -err;
		goto fail;
	}
	uint32_t k = DT_STATE_WALL_OFFSET;
	uint64_t v = dt_wall_ns() - dt_now_ns();
	if (bpf_map_update_elem(st->fd, &k, &v, BPF_ANY) < 0)
		goto fail;
	k = DT_STATE_DTRACE_PID;
	v = (uint64_t)getpid();
	if (bpf_map_update_elem(st->fd, &k, &v, BPF_ANY) < 0)
		goto fail;
	return dt_cg_maps_init(dtp);
fail:
	dt_set_error(dtp, "failed to initialise the session's maps: %s",
		     strerror(errno));
	return -1;
}

/* Which trampoline of the program of o's underlying probe reads the
 * arguments of o's entry j, as the overlay value says it. */
static uint32_t overlay_user_flags(const struct dt_progset *ps,
				   const dt_overlay_ent_t *o, uint32_t j)
{
	const dt_uprobe_ent_t *u = &ps->ups[o->cookie - 1];
	int i;

	if (u->prog < 0)
		return 0;
	const dt_kprog_t *kp = &ps->progs[u->prog];
	i = dt_user_index(kp->users, kp->nusers, o->users[j].pv,
			  o->users[j].kind);
	return i > 0 ? (uint32_t)i << DT_OVL_USER_SHIFT : 0;
}

/* Write the entry of probe p at off in an overlay value of words-word
 * clause sets. */
static void overlay_fill_ent(char *v, int off, uint32_t words,
			     const dtrace_probe_t *p, uint32_t user_flags)
{
	dt_ovlent_t e = { .prid = p->id };

	e.flags = (p->attr & DTRACE_PROBE_TEMPLATE) ? DT_OVL_TEMPLATE : 0;
	e.flags |= user_flags;
	memcpy(v + off, &e, sizeof(e));
	for (uint32_t w = 0; w < words; w++) {
		uint64_t bits = dt_cs_word(&p->clauses, w);
		memcpy(v + off + sizeof(e) + 8 * w, &bits, 8);
	}
}

/* Whether o (of one process) holds the process's own probe of template
 * tprid: the same names but the provider's, the template's with the pid
 * after it ("myapp1234" of "myapp"). */
static bool overlay_has_own(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o,
			    uint32_t tprid)
{
	const dtrace_probe_t *t = dt_probe_by_id(dtp, tprid);
	char pid[16];

	if (t == NULL || !(t->attr & DTRACE_PROBE_TEMPLATE))
		return false;
	snprintf(pid, sizeof(pid), "%u", o->pid);
	size_t len = strlen(t->prv);
	for (uint32_t j = 0; j < o->n; j++) {
		const dtrace_probe_t *p = dt_probe_by_id(dtp, o->prids[j]);

		if (p != NULL && strncmp(p->prv, t->prv, len) == 0 &&
		    strcmp(p->prv + len, pid) == 0 &&
		    strcmp(p->mod, t->mod) == 0 &&
		    strcmp(p->fun, t->fun) == 0 &&
		    strcmp(p->prb, t->prb) == 0)
			return true;
	}
	return false;
}

/* Whether o holds probe prid. */
static bool overlay_has(const dt_overlay_ent_t *o, uint32_t prid)
{
	for (uint32_t j = 0; j < o->n; j++)
		if (o->prids[j] == prid)
			return true;
	return false;
}

/*
 * The value of overlay o in v (dt_ovl_size() bytes, zeroed): its probes,
 * and for a process's overlay those of every process (0, cookie) too,
 * since a firing that finds the process's overlay looks no further: a pid
 * probe of every process and a USDT probe of one process on one
 * instruction both run.  A template of every process gives way to the
 * process's own probe of it.
 */
static void overlay_value(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o,
			  char *v)
{
	const uint32_t words = dt_clause_words(dtp->nclauses);
	const dt_overlay_ent_t *all = o->pid != 0 ?
		dt_overlay_of(dtp->progs, 0, o->cookie) : NULL;
	dt_overlay_t hdr = { .n = 0 };

	for (uint32_t j = 0; j < o->n; j++)
		overlay_fill_ent(v, dt_ovl_ent_off(words, (int)hdr.n++), words,
				 dt_probe_by_id(dtp, o->prids[j]),
				 overlay_user_flags(dtp->progs, o, j));
	for (uint32_t j = 0; all != NULL && j < all->n; j++) {
		const dtrace_probe_t *p = dt_probe_by_id(dtp, all->prids[j]);

		if (overlay_has(o, p->id) || overlay_has_own(dtp, o, p->id))
			continue;
		if (hdr.n == DT_OVERLAY_MAX) {
			dt_warn(dtp, "more than %d probes on one site in "
				"process %u: %s:%s:%s:%s left out",
				DT_OVERLAY_MAX, o->pid, p->prv, p->mod, p->fun,
				p->prb);
			continue;
		}
		overlay_fill_ent(v, dt_ovl_ent_off(words, (int)hdr.n++), words,
				 p, overlay_user_flags(dtp->progs, all, j));
	}
	memcpy(v, &hdr, sizeof(hdr));
}

/* The overlays o[0 .. n) written: their keys (pid, cookie) and values
 * (overlay_value()) in batches of DT_MAP_BATCH. */
static int overlays_write(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o,
			  uint32_t n)
{
	dtrace_map_t *ovl = dt_bpf_map_find(dtp, "overlay");
	const size_t vsize = (size_t)dt_ovl_size(dt_clause_words(
		dtp->nclauses));
	uint32_t batch = n < DT_MAP_BATCH ? n : DT_MAP_BATCH;
	int err = 0;

	if (n == 0)
		return 0;
	uint32_t (*keys)[2] = dt_zalloc(batch * sizeof(*keys));
	char *vals = dt_zalloc(batch * vsize);
	for (uint32_t done = 0; done < n && err == 0; done += batch) {
		uint32_t k = n - done < batch ? n - done : batch;
		memset(vals, 0, k * vsize);
		for (uint32_t i = 0; i < k; i++) {
			keys[i][0] = o[done + i].pid;
			keys[i][1] = o[done + i].cookie;
			overlay_value(dtp, &o[done + i], vals + i * vsize);
		}
		err = dt_bpf_map_update_many(ovl, keys, vals, k);
	}
	if (err < 0)
		dt_warn(dtp, "failed to record an overlay: %s", strerror(-err));
	free(keys);
	free(vals);
	return err;
}

/* Whether o is the overlay of a process that exec'ed since
 * (dt_overlays_retire()): none in the map. */
static bool overlay_retired(const dt_overlay_ent_t *o)
{
	return o->pid != 0 && o->n == 0;
}

/* A retired overlay out of the map, so that the process's firings find
 * the overlay of every process.  0 or -errno. */
static int overlay_delete(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o)
{
	const uint32_t key[2] = { o->pid, o->cookie };

	if (bpf_map_delete_elem(dt_bpf_map_find(dtp, "overlay")->fd,
				key) == 0 || errno == ENOENT)
		return 0;
	int err = -errno;
	dt_warn(dtp, "failed to retire an overlay: %s", strerror(-err));
	return err;
}

static int overlay_update(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o)
{
	if (overlay_retired(o))
		return overlay_delete(dtp, o);
	return overlays_write(dtp, o, 1);
}

/* overlay_update(), and for the overlay of every process, the overlays of
 * each process at its site, which hold its probes too. */
int dt_overlay_write(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o)
{
	const struct dt_progset *ps = dtp->progs;
	int err = overlay_update(dtp, o);

	for (uint32_t i = ps->ups[o->cookie - 1].ovl_first;
	     o->pid == 0 && i != 0; i = ps->ovls[i - 1].cookie_next)
		if (ps->ovls[i - 1].pid != 0 &&
		    !overlay_retired(&ps->ovls[i - 1]) &&
		    overlay_update(dtp, &ps->ovls[i - 1]) < 0)
			err = -1;
	return err;
}
