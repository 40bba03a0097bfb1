/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_sites.c: underlying probes and overlays, recorded.
 *
 * Providers place underlying probes (host->sites->uprobe) and say which overlying
 * probe applies in which process (host->sites->overlay) while they enable probes.
 * Cookies are indices into ps->ups plus one; the kernel hands the cookie of
 * the firing site to the program (bpf_get_attach_cookie), which looks the
 * overlay up by (pid, cookie), then (0, cookie); a program built for one
 * site knows its cookie (sole_cookie_of()).  There is one underlying
 * probe per (flags, file, offset) whatever the providers and processes its
 * overlays name: its links (one for every process, or one per process,
 * with disjoint pid filters) run its program once per firing, and only the
 * overlay lookup chooses the process's probe.
 *
 * Three indexes (dt_hash.h tables of cookies) find them: ups_index an
 * underlying probe by (file, offset, flags, solo provider), site_index the
 * first underlying probe at a (path, offset), whose semaphore they all
 * share (site_link()), and ovls_index an overlay by (pid, cookie) (of
 * overlay numbers + 1); pid_index chains the overlays of each process
 * (pid_next), which an exec of that process retires (dt_overlays_retire()).
 *
 * This is the record, which the host entry points (dt_program.c) write
 * and nothing else: what changed since the kernel last matched it waits
 * on two queues, sites that need a link, a program or their links moved
 * (queued_ups), and overlays to write (queued_ovls), for the
 * reconciliation (dt_prog_reconcile.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/perf_event.h>

#include "dt_hash.h"
#include "dt_prog_impl.h"

/* The file an underlying probe is on, as the kernel knows it: by device
 * and inode, so that one file reached by two paths (a process of another
 * mount namespace, through /proc/PID/root) gets one uprobe, whose links
 * would otherwise each run a firing.  Without them, by path.  The answer
 * for the path asked last is reused for FILE_ID_FRESH_NS, so that a file
 * rebuilt at the same path later in the session is seen as a new file. */
#define FILE_ID_FRESH_NS	(100 * 1000 * 1000ull)

static void uprobe_file_id(struct dt_progset *ps, dt_uprobe_ent_t *u)
{
	uint64_t now = dt_now_ns();
	struct stat st;

	if (u->path[0] == '\0')
		return;
	if (ps->id_path == NULL || strcmp(ps->id_path, u->path) != 0 ||
	    now - ps->id_when > FILE_ID_FRESH_NS) {
		if (stat(u->path, &st) != 0)
			return;
		free(ps->id_path);
		ps->id_path = dt_strdup(u->path);
		ps->id_dev = st.st_dev;
		ps->id_ino = st.st_ino;
		ps->id_when = now;
	}
	u->dev = ps->id_dev;
	u->ino = ps->id_ino;
}

static bool same_file(const dt_uprobe_ent_t *a, const dt_uprobe_ent_t *b)
{
	if (a->ino != 0 || b->ino != 0)
		return a->ino == b->ino && a->dev == b->dev;
	return strcmp(a->path, b->path) == 0;
}

static uint64_t uprobe_hash(const dt_uprobe_ent_t *u)
{
	uint64_t h = u->ino != 0 ?
		dt_hash_u64(dt_hash_u64(DT_HASH_INIT, u->dev), u->ino) :
		dt_hash_str(DT_HASH_INIT, u->path);

	h = dt_hash_u64(h, u->offset);
	h = dt_hash_u64(h, (uintptr_t)u->solo_pv);
	h = dt_hash_u64(h, u->flags);
	return dt_hash_u64(h, (uint64_t)u->solo_kind);
}

static uint64_t site_hash(const dt_uprobe_ent_t *u)
{
	return dt_hash_u64(dt_hash_str(DT_HASH_INIT, u->path), u->offset);
}

static uint64_t overlay_hash(uint32_t pid, uint32_t cookie)
{
	return dt_hash_u64(dt_hash_u64(DT_HASH_INIT, pid), cookie);
}

/* What an index is looked up with: the record, whose entries its
 * elements number from 1, and an entry like the one sought. */
typedef struct index_key {
	const struct dt_progset *ps;
	const void *ent;
} index_key_t;

static bool ups_eq(const void *elem, const void *key)
{
	const index_key_t *k = key;
	const dt_uprobe_ent_t *u = &k->ps->ups[*(const uint32_t *)elem - 1];
	const dt_uprobe_ent_t *e = k->ent;

	return u->solo_pv == e->solo_pv && u->offset == e->offset &&
	       u->flags == e->flags && u->solo_kind == e->solo_kind &&
	       same_file(u, e);
}

static bool site_eq(const void *elem, const void *key)
{
	const index_key_t *k = key;
	const dt_uprobe_ent_t *u = &k->ps->ups[*(const uint32_t *)elem - 1];
	const dt_uprobe_ent_t *e = k->ent;

	return u->offset == e->offset && strcmp(u->path, e->path) == 0;
}

static bool ovls_eq(const void *elem, const void *key)
{
	const index_key_t *k = key;
	const dt_overlay_ent_t *o = &k->ps->ovls[*(const uint32_t *)elem - 1];
	const dt_overlay_ent_t *e = k->ent;

	return o->pid == e->pid && o->cookie == e->cookie;
}

/* The index t, made on first use. */
static dt_htab_t *index_of(dt_htab_t *t, dt_htab_eq_f *eq)
{
	if (t->esize == 0) {
		dt_htab_init(t, sizeof(uint32_t), eq);
		dt_htab_nofail(t);
	}
	return t;
}

/*
 * The kernel keeps one uprobe per (file, offset) and refuses a second
 * registration there with another semaphore (reference counter) offset,
 * even 0 against one.  So every underlying probe at a site uses the
 * semaphore that any of them names: a pid probe on a USDT site shares the
 * USDT probe's counter (and so enables its guarded code while traced).
 */
static void site_link(dtrace_hdl_t *dtp, struct dt_progset *ps, uint32_t idx)
{
	dt_uprobe_ent_t *u = &ps->ups[idx];

	if (u->perf)
		return;
	/* The index holds the first entry of each site. */
	index_key_t k = { ps, u };
	bool added;
	uint32_t *slot = dt_htab_insert(index_of(&ps->site_index, site_eq),
					site_hash(u), &k, &added);
	if (added) {
		*slot = idx + 1;
		return;
	}
	dt_uprobe_ent_t *first = &ps->ups[*slot - 1];
	if (u->ref_ctr == 0) {
		u->ref_ctr = first->ref_ctr;
	} else if (first->ref_ctr != u->ref_ctr) {
		if (first->prog >= 0 || first->ref_ctr != 0)
			dt_warn(dtp, "%s:0x%llx: semaphores at 0x%llx and 0x%llx: "
				"the kernel will refuse one", u->path,
				(unsigned long long)u->offset,
				(unsigned long long)first->ref_ctr,
				(unsigned long long)u->ref_ctr);
		for (uint32_t i = *slot; i != 0; i = ps->ups[i - 1].site_next)
			ps->ups[i - 1].ref_ctr = u->ref_ctr;
	}
	u->site_next = first->site_next;
	first->site_next = idx + 1;
}

/* A provider that joins the underlying probe u names a semaphore that the
 * first did not: every underlying probe at the site uses it (site_link). */
static void site_ref_ctr_set(struct dt_progset *ps, dt_uprobe_ent_t *u,
			     uint64_t ref_ctr)
{
	for (uint32_t i = dt_site_first(ps, u); i != 0;
	     i = ps->ups[i - 1].site_next)
		ps->ups[i - 1].ref_ctr = ref_ctr;
	u->ref_ctr = ref_ctr;
}

/* Make u fire in process pid too (0: every process), for the process's
 * image of generation image.  Returns whether that needs a link it does
 * not have yet. */
static bool uprobe_add_pid(dt_uprobe_ent_t *u, pid_t pid, uint32_t image)
{
	if (u->all)
		return false;
	if (pid == 0) {
		u->all = true;
		return true;
	}
	for (uint32_t i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid) {
			u->pids[i].image = image;	/* wanted still */
			return false;
		}
	u->pids = dt_realloc(u->pids, (u->npids + 1) * sizeof(*u->pids));
	u->pids[u->npids++] = (dt_uprobe_pid_t){ .pid = pid, .group = -1,
						 .image = image };
	return true;
}

/* The index of (pv, kind) in users[0..n), or -1. */
int dt_user_index(const dt_site_user_t *users, uint32_t n,
		  const dt_provider_t *pv, int kind)
{
	for (uint32_t i = 0; i < n; i++)
		if (users[i].pv == pv && users[i].kind == kind)
			return (int)i;
	return -1;
}

/* Whether (pv, kind) may read the arguments at u: it is one of its users,
 * or may become one (u has no program yet and room left). */
static bool site_user_fits(const dt_uprobe_ent_t *u, const dt_provider_t *pv,
			   int kind)
{
	if (dt_user_index(u->users, u->nusers, pv, kind) >= 0)
		return true;
	return u->prog < 0 && u->nusers < DT_SITE_USERS;
}

/* Make (pv, kind) a user of u, kept sorted so that the programs of two
 * sites with the same users are one; stamp it as placed last. */
static void site_user_add(struct dt_progset *ps, dt_uprobe_ent_t *u,
			  dt_provider_t *pv, int kind)
{
	int i = dt_user_index(u->users, u->nusers, pv, kind);

	if (i < 0) {
		i = (int)u->nusers++;
		while (i > 0 && ((uintptr_t)u->users[i - 1].pv > (uintptr_t)pv ||
				 (u->users[i - 1].pv == pv &&
				  u->users[i - 1].kind > kind))) {
			u->users[i] = u->users[i - 1];
			u->stamp[i] = u->stamp[i - 1];
			i--;
		}
		u->users[i] = (dt_site_user_t){ pv, kind };
	}
	u->stamp[i] = ++ps->stamp;
	u->pv = u->users[0].pv;
	u->kind = u->users[0].kind;
}

/* The trampoline that reads prp's arguments at u: the kind pv placed u
 * with last (a provider places a probe's site, then overlays the probe). */
static dt_site_user_t site_user_of(const dt_uprobe_ent_t *u,
				   const dt_provider_t *pv)
{
	dt_site_user_t best = u->users[0];
	uint32_t when = 0;

	for (uint32_t i = 0; i < u->nusers; i++)
		if (u->users[i].pv == pv && u->stamp[i] >= when) {
			best = u->users[i];
			when = u->stamp[i];
		}
	return best;
}

/* The cookie of the underlying probe like key, or 0. */
static uint32_t uprobe_find(struct dt_progset *ps, const dt_uprobe_ent_t *key)
{
	index_key_t k = { ps, key };
	const uint32_t *e = dt_htab_find(index_of(&ps->ups_index, ups_eq),
					 uprobe_hash(key), &k);

	return e != NULL ? *e : 0;
}

/* The first underlying probe at u's site (path, offset), +1, or 0. */
uint32_t dt_site_first(struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	index_key_t k = { ps, u };
	const uint32_t *e = dt_htab_find(index_of(&ps->site_index, site_eq),
					 site_hash(u), &k);

	return e != NULL ? *e : 0;
}

/* The overlay of (pid, cookie), or NULL. */
const dt_overlay_ent_t *dt_overlay_of(const struct dt_progset *ps,
				      uint32_t pid, uint32_t cookie)
{
	for (uint32_t i = ps->ups[cookie - 1].ovl_first; i != 0;
	     i = ps->ovls[i - 1].cookie_next)
		if (ps->ovls[i - 1].pid == pid)
			return &ps->ovls[i - 1];
	return NULL;
}

/* Whether u is a tracepoint, whose program's context is its record. */
bool dt_ent_is_tracepoint(const dt_uprobe_ent_t *u)
{
	return u->perf && u->pp.type == PERF_TYPE_TRACEPOINT;
}

/* Site u (index + 1) waits for the next reconciliation (dt_reconcile()):
 * it needs a link, a program, or its links moved. */
static void site_queue(struct dt_progset *ps, uint32_t cookie)
{
	dt_uprobe_ent_t *u = &ps->ups[cookie - 1];

	if (u->queued)
		return;
	u->queued = true;
	dt_array_room(ps->queued_ups, ps->nqueued_ups, ps->queued_ups_cap);
	ps->queued_ups[ps->nqueued_ups++] = cookie;
}

/* Overlay o waits for the next reconciliation, which writes it. */
static void overlay_queue(struct dt_progset *ps, dt_overlay_ent_t *o)
{
	if (o->queued)
		return;
	o->queued = true;
	dt_array_room(ps->queued_ovls, ps->nqueued_ovls, ps->queued_ovls_cap);
	ps->queued_ovls[ps->nqueued_ovls++] = (uint32_t)(o - ps->ovls) + 1;
}

/*
 * (pv, kind) comes to the underlying probe u after its program was built:
 * while tracing, a process that a pid probe of every process covers
 * starts, with a USDT probe on the pid probe's instruction, say.  It
 * joins u's users, last, so that the overlay entries written so far keep
 * their trampoline's index; the reconciliation gives u a program of its
 * new users and moves u's links to it (joined, then relink).  When pv
 * names a semaphore that u's links lack, every link at the site is made
 * again with it (refresh, sites_refresh_mark()).  Returns false when u
 * cannot take pv: pv then gets an underlying probe of its own there.
 */
static bool site_join(struct dt_progset *ps, dt_uprobe_ent_t *u,
		      dt_provider_t *pv, const dtrace_uprobe_t *up)
{
	if (u->prog < 0 || u->perf || u->nusers == DT_SITE_USERS ||
	    (u->flags & DT_PROG_FLAGS) ||
	    (u->ref_ctr != 0 && up->ref_ctr_offset != 0 &&
	     u->ref_ctr != up->ref_ctr_offset))
		return false;
	u->users[u->nusers] = (dt_site_user_t){ pv, up->kind };
	u->stamp[u->nusers++] = ++ps->stamp;
	u->joined = true;
	if (u->ref_ctr == 0 && up->ref_ctr_offset != 0) {
		site_ref_ctr_set(ps, u, up->ref_ctr_offset);
		u->refresh = true;
	}
	return true;
}

/* A new underlying probe like key, of pv, indexed; returns its cookie. */
static uint32_t site_add(dtrace_hdl_t *dtp, struct dt_progset *ps,
			 const dt_uprobe_ent_t *key, dt_provider_t *pv,
			 const dtrace_uprobe_t *up,
			 const dtrace_perfprobe_t *pp)
{
	dt_array_room(ps->ups, ps->nups, ps->ups_cap);
	ps->ups[ps->nups] = (dt_uprobe_ent_t){
		.solo_pv = key->solo_pv, .solo_kind = key->solo_kind,
		.flags = up->flags,
		.path = dt_strdup(up->path), .offset = up->offset,
		.dev = key->dev, .ino = key->ino,
		.ref_ctr = up->ref_ctr_offset, .prog = -1,
		.all_group = -1, .perf = pp != NULL,
		.pp = pp ? *pp : (dtrace_perfprobe_t){ 0 },
	};
	ps->nups++;
	index_key_t k = { ps, &ps->ups[ps->nups - 1] };
	*(uint32_t *)dt_htab_insert(index_of(&ps->ups_index, ups_eq),
				    uprobe_hash(key), &k, NULL) = ps->nups;
	site_user_add(ps, &ps->ups[ps->nups - 1], pv, up->kind);
	site_link(dtp, ps, ps->nups - 1);
	return ps->nups;
}

/*
 * Record the underlying probe up, found or added (on a perf event when pp
 * is not NULL), firing in up->pid.  Returns its cookie (index + 1).  A
 * uprobe is shared by the providers at its site, also by one that comes
 * after its program was built (site_join()); one that cannot take pv's
 * trampoline any more leaves pv a probe of its own (solo).  What needs a
 * link it has not got yet, or a program, is queued.
 */
uint32_t dt_site_record(dtrace_hdl_t *dtp, struct dt_progset *ps,
			dt_provider_t *pv, const dtrace_uprobe_t *up,
			const dtrace_perfprobe_t *pp)
{
	dt_uprobe_ent_t key = {
		.flags = up->flags, .path = (char *)up->path,
		.offset = up->offset,
		.solo_pv = pp ? pv : NULL, .solo_kind = pp ? up->kind : 0,
	};
	uprobe_file_id(ps, &key);
	uint32_t cookie = uprobe_find(ps, &key);

	if (cookie != 0 && !site_user_fits(&ps->ups[cookie - 1], pv, up->kind) &&
	    !site_join(ps, &ps->ups[cookie - 1], pv, up)) {
		key.solo_pv = pv;
		key.solo_kind = up->kind;
		cookie = uprobe_find(ps, &key);
	}
	if (cookie == 0) {
		cookie = site_add(dtp, ps, &key, pv, up, pp);
	} else {
		dt_uprobe_ent_t *u = &ps->ups[cookie - 1];

		site_user_add(ps, u, pv, up->kind);
		if (u->ref_ctr == 0 && up->ref_ctr_offset != 0 && u->prog < 0)
			site_ref_ctr_set(ps, u, up->ref_ctr_offset);
	}
	dt_uprobe_ent_t *u = &ps->ups[cookie - 1];
	bool more = uprobe_add_pid(u, pp ? 0 : up->pid, ps->image);
	ps->links_pending |= more;
	if (more || u->joined || u->relink)
		site_queue(ps, cookie);
	return cookie;
}

/* An element of pid_index: a process and the first of its overlays (the
 * pid first: dt_prog_sweep_gone() reads it). */
typedef struct pid_chain {
	uint32_t pid;
	uint32_t first;		/* overlay number + 1 */
} pid_chain_t;

static bool pid_chain_eq(const void *elem, const void *key)
{
	return ((const pid_chain_t *)elem)->pid == *(const uint32_t *)key;
}

static dt_htab_t *pid_index_of(struct dt_progset *ps)
{
	if (ps->pid_index.esize == 0) {
		dt_htab_init(&ps->pid_index, sizeof(pid_chain_t),
			     pid_chain_eq);
		dt_htab_nofail(&ps->pid_index);
	}
	return &ps->pid_index;
}

/* Overlay o (number + 1: ovl) chained to its process's. */
static void pid_chain_add(struct dt_progset *ps, dt_overlay_ent_t *o,
			  uint32_t ovl)
{
	bool added;
	pid_chain_t *c = dt_htab_insert(pid_index_of(ps),
					dt_hash_u64(DT_HASH_INIT, o->pid),
					&o->pid, &added);

	if (added)
		*c = (pid_chain_t){ .pid = o->pid };
	o->pid_next = c->first;
	c->first = ovl;
}

/* The overlay of (pid, cookie), made if there is none. */
static dt_overlay_ent_t *overlay_find_or_add(struct dt_progset *ps,
					     uint32_t pid, uint32_t cookie)
{
	dt_overlay_ent_t key = { .pid = pid, .cookie = cookie };
	index_key_t k = { ps, &key };
	bool added;
	uint32_t *slot = dt_htab_insert(index_of(&ps->ovls_index, ovls_eq),
					overlay_hash(pid, cookie), &k, &added);

	if (!added)
		return &ps->ovls[*slot - 1];
	uint32_t ovl = ps->ovl_free;
	if (ovl != 0) {		/* a slot of a process gone */
		ps->ovl_free = ps->ovls[ovl - 1].cookie_next;
	} else {
		dt_array_room(ps->ovls, ps->novls, ps->ovls_cap);
		ovl = ++ps->novls;
	}
	dt_overlay_ent_t *o = &ps->ovls[ovl - 1];
	*o = key;
	*slot = ovl;
	o->cookie_next = ps->ups[cookie - 1].ovl_first;
	ps->ups[cookie - 1].ovl_first = ovl;
	if (pid != 0)
		pid_chain_add(ps, o, ovl);
	return o;
}

/* Overlay ovl (number + 1) out of its underlying probe's chain. */
static void cookie_chain_remove(struct dt_progset *ps, uint32_t ovl)
{
	uint32_t *link = &ps->ups[ps->ovls[ovl - 1].cookie - 1].ovl_first;

	while (*link != 0 && *link != ovl)
		link = &ps->ovls[*link - 1].cookie_next;
	if (*link == ovl)
		*link = ps->ovls[ovl - 1].cookie_next;
}

/* Overlay ovl, retired and written, made a free slot. */
static void overlay_free(struct dt_progset *ps, uint32_t ovl)
{
	dt_overlay_ent_t *o = &ps->ovls[ovl - 1];
	index_key_t k = { ps, o };

	dt_htab_remove(&ps->ovls_index, overlay_hash(o->pid, o->cookie), &k);
	cookie_chain_remove(ps, ovl);
	*o = (dt_overlay_ent_t){ .cookie_next = ps->ovl_free };
	ps->ovl_free = ovl;
}

/*
 * Process pid has exited and its overlays were retired (dt_overlays_retire())
 * and written: their slots are made free for the overlays of processes to
 * come, and the process leaves pid_index.  One still waiting to be written
 * (queued, or deferred while its site is linked again) keeps the process
 * there for a later call.  How many are left.
 */
uint32_t dt_overlays_free_pid(struct dt_progset *ps, uint32_t pid)
{
	uint64_t h = dt_hash_u64(DT_HASH_INIT, pid);
	pid_chain_t *c = ps->pid_index.esize != 0 ?
			 dt_htab_find(&ps->pid_index, h, &pid) : NULL;
	uint32_t left = 0;

	if (c == NULL)
		return 0;
	for (uint32_t *link = &c->first; *link != 0;) {
		dt_overlay_ent_t *o = &ps->ovls[*link - 1];
		uint32_t ovl = *link;

		if (o->n != 0 || o->queued || o->deferred) {
			left++;
			link = &o->pid_next;
			continue;
		}
		*link = o->pid_next;
		overlay_free(ps, ovl);
	}
	if (left == 0)
		dt_htab_remove(&ps->pid_index, h, &pid);
	return left;
}

/* Record that probe prp applies at underlying probe cookie in process pid
 * (0: every process), with the trampoline its provider placed the site
 * with last; queued to be written.  0 (also when it was there), or
 * -E2BIG when the site has DT_OVERLAY_MAX probes in that process. */
int dt_overlay_record(dtrace_hdl_t *dtp, struct dt_progset *ps,
		      uint32_t cookie, uint32_t pid, const dtrace_probe_t *prp)
{
	dt_overlay_ent_t *o = overlay_find_or_add(ps, pid, cookie);

	for (uint32_t i = 0; i < o->n; i++)
		if (o->prids[i] == prp->id) {
			o->images[i] = ps->image;	/* wanted still */
			return 0;
		}
	if (o->n == DT_OVERLAY_MAX) {
		dt_warn(dtp, "more than %d probes on one site: %s:%s:%s:%s "
			"left out", DT_OVERLAY_MAX, prp->prv, prp->mod,
			prp->fun, prp->prb);
		return -E2BIG;
	}
	o->users[o->n] = site_user_of(&ps->ups[cookie - 1], prp->provider);
	o->images[o->n] = ps->image;
	o->prids[o->n++] = prp->id;
	overlay_queue(ps, o);
	return 0;
}

/* The probes of overlay o overlaid before generation before taken out,
 * the others kept in their order.  Whether any was. */
static bool overlay_drop_before(dt_overlay_ent_t *o, uint32_t before)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < o->n; i++) {
		if (o->images[i] < before)
			continue;
		o->prids[kept] = o->prids[i];
		o->users[kept] = o->users[i];
		o->images[kept++] = o->images[i];
	}
	if (kept == o->n)
		return false;
	o->n = kept;
	o->described = 0;	/* the names of those kept move */
	return true;
}

/*
 * Process pid exec'ed: the probes of its overlays made before generation
 * before (UINT32_MAX: all), which named the probes of its old image, are
 * taken out and the overlays queued, so that the reconciliation writes
 * them or takes them out of the kernel's map (dt_overlay_write()); its
 * firings then find the overlays of every process alone, as a new
 * process's do, until providers overlay the new image's.  The entries
 * stay in the record, and take the probes that providers overlay for the
 * new image as any overlay would.  How many changed.
 */
uint32_t dt_overlays_retire(struct dt_progset *ps, uint32_t pid,
			    uint32_t before)
{
	const pid_chain_t *c = NULL;
	uint32_t n = 0;

	if (pid != 0 && ps->pid_index.esize != 0)
		c = dt_htab_find(&ps->pid_index, dt_hash_u64(DT_HASH_INIT, pid),
				 &pid);
	for (uint32_t i = c ? c->first : 0; i != 0;) {
		dt_overlay_ent_t *o = &ps->ovls[i - 1];

		i = o->pid_next;

		if (!overlay_drop_before(o, before))
			continue;
		overlay_queue(ps, o);
		n++;
	}
	return n;
}
