/* SPDX-License-Identifier: MIT */
/*
 * dt_program.c: underlying probes, overlays and the per-kind programs.
 *
 * Providers place underlying probes (host->uprobe) and say which overlying
 * probe applies in which process (host->overlay) while they enable probes.
 * Cookies are indices into ps->ups plus one; the kernel hands the cookie of
 * the firing site to the program (bpf_get_attach_cookie), which looks the
 * overlay up by (pid, cookie), then (0, cookie); a program built for one
 * site knows its cookie (sole_cookie_of()).  There is one underlying
 * probe per (flags, file, offset) whatever the providers and processes its
 * overlays name: its links (one for every process, or one per process,
 * with disjoint pid filters) run its program once per firing, and only the
 * overlay lookup chooses the process's probe.
 *
 * A program, for one (set of (provider, kind) users, BEGIN/END flags):
 *
 *	prologue	r6 = ctx, r7 = mstate, activity check (this CPU's
 *			copy in the mstate, cpu_active), default key
 *	trampoline	the provider's: arguments into the mstate
 *	fast path	a program serving one site with one overlying probe
 *			(fast_prid()): while DT_STATE_GENERIC is 0, that
 *			probe's clauses, then the epilogue
 *	lookup		r8 = overlay value, or leave
 *	dispatch	for each entry i of the overlay, for each clause c of
 *			this program: if clause c is in ent[i]'s set, call c;
 *			at a site of several users, the entry's trampoline
 *			first (a subprogram)
 *	epilogue	BEGIN activates the session, END stops it
 *	subprograms	the error handler, then each clause once
 *
 * r8 and r9 survive the calls (callee-saved), so the dispatch keeps the
 * overlay value in r8 and the current word of the entry's clause set in
 * r9 (dt_maskref_t).  The program's own stack
 * use is one 8-byte slot at fp-8 for map keys; the error handler, a
 * subprogram of its own, stages its record at fp-48..fp-8 of its frame.
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

#include "dt_program.h"
#include "dt_as.h"
#include "dt_bpf.h"
#include "dt_cg.h"
#include "dt_instance.h"
#include "dt_kevent.h"
#include "dt_opt.h"
#include "dt_plugcall.h"
#include "dt_rec.h"
#include "dt_runtime.h"
#include "dt_sigwatch.h"
#include "dt_uretdepth.h"

/* A process an underlying probe fires in, and whether its link exists. */
typedef struct dt_uprobe_pid {
	pid_t pid;
	bool attached;		/* or given up (see "Refused links") */
	uint8_t tries;		/* requests the kernel refused */
	int group;		/* the link's, in ps->groups, else -1 */
} dt_uprobe_pid_t;

/* A provider's trampoline (its kind) that reads the arguments of some
 * overlying probes of an underlying probe. */
typedef struct dt_site_user {
	dt_provider_t *pv;
	int kind;
} dt_site_user_t;

/* Trampolines one underlying probe serves at most (a pid probe, a pid
 * offset probe, a USDT probe...); one more makes it a probe of its own. */
#define DT_SITE_USERS	4

/*
 * An underlying probe: one per (flags, file, offset), whatever the
 * providers and processes its overlays name.  It fires in every process
 * (all) as soon as one overlay covers every process, else in the processes
 * of pids[]; each such process gets its own link, whose pid filters are
 * disjoint, so a firing runs the program once and the overlay lookup picks
 * the process's probe.  users[] are the trampolines of the providers that
 * placed it, sorted; each overlay entry names the one that reads its
 * probe's arguments.  A provider that comes to a site after its program
 * was built (while tracing) joins it all the same (site_join()): it is
 * appended to users[], so that the entries written before keep their
 * trampoline's index, and the site is linked again to a program of its
 * new users.  Only a fifth user gets an underlying probe of its own there
 * (solo_pv, solo_kind), as do perf and kernel events, never shared.
 */
typedef struct dt_uprobe_ent {
	dt_provider_t *pv;	/* users[0]'s */
	int kind;
	dt_site_user_t users[DT_SITE_USERS];
	uint32_t nusers;
	uint32_t stamp[DT_SITE_USERS]; /* when each was last placed */
	dt_provider_t *solo_pv;	/* not shared: the one provider's */
	int solo_kind;
	unsigned flags;
	char *path;
	dev_t dev;		/* the file, when path could be stat()ed */
	ino_t ino;		/*   (0: not known, path names it) */
	uint64_t offset, ref_ctr;
	bool all;		/* fires in every process */
	bool all_attached;	/* its pid-0 link exists (or given up) */
	uint8_t all_tries;	/* requests of that link refused */
	int all_group;		/* that link's, in ps->groups, else -1 */
	bool relink;		/* a user joined: its links go to its new
				   program (site_join()) */
	bool refresh;		/*   and with a semaphore: the site's links
				   close before it is linked again */
	bool held;		/* not linked until those are closed */
	dt_uprobe_pid_t *pids;	/* else in these */
	uint32_t npids;
	int prog;		/* index in ps->progs, once built */
	bool perf;		/* a perf event, not a uprobe: */
	dtrace_perfprobe_t pp;	/*   which one */
	dtrace_event_type_t kev; /* perf: a kernel event (kprobe, fentry,
				   raw tracepoint...) named by path, else 0 */
	uint32_t site_next;	/* next entry at the same (path, offset), +1 */
	uint32_t ovl_first;	/* its first overlay, +1 (cookie_next) */
} dt_uprobe_ent_t;

typedef struct dt_overlay_ent {
	uint32_t pid, cookie;
	uint32_t prids[DT_OVERLAY_MAX];
	dt_site_user_t users[DT_OVERLAY_MAX];	/* whose trampoline */
	uint32_t n;
	bool deferred;		/* written once its site is linked again */
	uint32_t cookie_next;	/* the next overlay of the cookie, +1 */
} dt_overlay_ent_t;

typedef struct dt_kprog {
	dt_provider_t *pv;	/* users[0]'s */
	int kind;
	dt_site_user_t users[DT_SITE_USERS]; /* the trampolines of its */
	uint32_t nusers;	/*   underlying probes, as theirs */
	unsigned flags;		/* DTRACE_UPROBE_BEGIN / END */
	bool perf;		/* a perf-event program */
	bool tracepoint;	/* of a tracepoint: no pt_regs context */
	int64_t soft_cookie;	/* > 0: run directly (raw tracepoint type,
				   BPF_PROG_TEST_RUN) for this one probe */
	dtrace_event_type_t kev; /* a kernel event's program (dt_kevent.c) */
	int64_t fixed_cookie;	/* > 0: a program of that one underlying
				   probe: a kernel event's own (it has no
				   attach cookie), or a uprobe program
				   built for one site (sole_cookie_of()) */
	const char *kname;	/* its event (function, tracepoint) */
	dt_clauseset_t clauses;	/* union of the sets of its overlays */
	int fd;
	dt_as_t as;
	struct dt_chain *chain;	/* its clauses in chained programs, or NULL */
} dt_kprog_t;

/* A link the kernel refused for a reason that may pass: underlying probe
 * ups[idx] in process pid (0: every process). */
typedef struct dt_refused {
	uint32_t idx;
	pid_t pid;
} dt_refused_t;

/*
 * A program whose clauses take more subprograms than the kernel lets one
 * program have (BPF_MAX_SUBPROGS, 256: each clause is one, with its own
 * callbacks) runs them in a chain of programs, each holding a part of
 * them, in clause order: the program looks the overlay up as usual, sets
 * mstate.chain_ent to 0 and tail-calls part 0.  Part k runs its clauses
 * for entry chain_ent of the overlay, then tail-calls part k + 1, or, from
 * the last part, part 0 for the next entry.  Part 0 ends the chain (with
 * the BEGIN/END epilogue) when no entry is left, as does exit().  The
 * parts find the overlay again from the mstate's key (dt_chain_lookup).
 */
typedef struct dt_chain {
	int nparts;
	dt_clauseset_t *parts;	/* the clauses of each part */
	dt_as_t *as;		/* and its program */
	dtrace_map_t *map;	/* PROG_ARRAY of the parts' programs */
} dt_chain_t;

#define DT_CHAIN_SUBPROGS	240	/* of a program: under the kernel's
					   256, with room for the dispatch's */
#define DT_CHAIN_MAX	8	/* parts: 4 entries x 8 parts + 1 tail
				   calls stay within the kernel's 33 */

/* Open-addressing index over ups or ovls: slots hold index + 1, 0 is free. */
typedef struct dt_index {
	uint32_t *slots;
	uint32_t size;		/* a power of two, at least twice the entries */
} dt_index_t;

struct dt_progset {
	dt_uprobe_ent_t *ups;
	uint32_t nups, ups_cap;
	dt_index_t ups_index;
	dt_index_t site_index;	/* (path, offset) -> first entry there */
	dt_overlay_ent_t *ovls;
	uint32_t novls, ovls_cap;
	dt_index_t ovls_index;
	dt_kprog_t *progs;
	int nprogs;
	bool built;
	bool batching;		/* see dt_prog_batch_begin() */
	bool links_pending;	/* some underlying probe may need a link */
	dt_provider_t *fire_refused; /* dt_prog_fire() said -ENOTSUP to it */
	uint32_t stamp;		/* counts host->uprobe() calls */
	dt_linkset_t *groups;	/* the links of each per-process request */
	int ngroups;
	dt_refused_t *refused;	/* links to ask for again, see "Refused links" */
	uint32_t nrefused;
	uint64_t retry_at;	/* dt_now_ns() from which they are */
	bool relinks;		/* some site has relink set */
	uint32_t ndeferred;	/* overlays with deferred set */
	/* The last file uprobe_file_id() looked up: a provider places a
	 * file's sites one after another (thousands for a libc glob), and one
	 * stat() serves them all while it is fresh. */
	char *id_path;
	dev_t id_dev;
	ino_t id_ino;
	uint64_t id_when;	/* dt_now_ns() of the stat() */
	/* The "mstate" map's mapping: each CPU's dt_mstate_t, mst_stride
	 * bytes apart, whose cpu_active and cpu_generic the consumer keeps. */
	uint8_t *mst;
	size_t mst_len, mst_stride;
	uint32_t mst_ncpus;
};

static struct dt_progset *progset(dtrace_hdl_t *dtp)
{
	if (dtp->progs == NULL)
		dtp->progs = dt_zalloc(sizeof(*dtp->progs));
	return dtp->progs;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

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
	uint64_t h = u->ino != 0 ? mix(mix(0, (uint64_t)u->dev), u->ino) :
				   str_hash(u->path);

	h = mix(h, u->offset);
	h = mix(h, (uintptr_t)u->solo_pv);
	h = mix(h, u->flags);
	return mix(h, (uint64_t)u->solo_kind);
}

static uint64_t overlay_hash(uint32_t pid, uint32_t cookie)
{
	return mix(mix(0, pid), cookie);
}

/* Find the slot of an entry equal to the probe (eq(i) true), or the free
 * slot where it would go. */
static uint32_t *index_slot(dt_index_t *ix, uint64_t hash,
			    bool (*eq)(const void *, uint32_t, const void *),
			    const void *set, const void *key)
{
	uint32_t mask = ix->size - 1;

	for (uint32_t i = (uint32_t)hash & mask;; i = (i + 1) & mask) {
		uint32_t *slot = &ix->slots[i];
		if (*slot == 0 || eq(set, *slot - 1, key))
			return slot;
	}
}

/* Before adding one entry to the nentries there are: rebuild the index
 * twice as large when it would pass half full. */
static void index_grow(dt_index_t *ix, uint32_t nentries,
		       uint64_t (*hash_of)(const void *, uint32_t),
		       const void *set)
{
	if ((nentries + 1) * 2 < ix->size)
		return;
	free(ix->slots);
	ix->size = ix->size ? ix->size * 2 : 256;
	ix->slots = dt_zalloc(ix->size * sizeof(uint32_t));
	for (uint32_t i = 0; i < nentries; i++) {
		uint32_t mask = ix->size - 1, j = (uint32_t)hash_of(set, i) & mask;
		while (ix->slots[j] != 0)
			j = (j + 1) & mask;
		ix->slots[j] = i + 1;
	}
}

static uint64_t ups_hash_of(const void *set, uint32_t i)
{
	const dt_uprobe_ent_t *u = &((const struct dt_progset *)set)->ups[i];

	return uprobe_hash(u);
}

static bool ups_eq(const void *set, uint32_t i, const void *key)
{
	const dt_uprobe_ent_t *u = &((const struct dt_progset *)set)->ups[i];
	const dt_uprobe_ent_t *k = key;

	return u->solo_pv == k->solo_pv && u->offset == k->offset &&
	       u->flags == k->flags && u->solo_kind == k->solo_kind &&
	       same_file(u, k);
}

static uint64_t site_hash_of(const void *set, uint32_t i)
{
	const dt_uprobe_ent_t *u = &((const struct dt_progset *)set)->ups[i];

	return mix(str_hash(u->path), u->offset);
}

static bool site_eq(const void *set, uint32_t i, const void *key)
{
	const dt_uprobe_ent_t *u = &((const struct dt_progset *)set)->ups[i];
	const dt_uprobe_ent_t *k = key;

	return u->offset == k->offset && strcmp(u->path, k->path) == 0;
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
	/* The entries before idx are in the site index (a rebuild puts
	 * every entry in; lookups still find the first of each site). */
	index_grow(&ps->site_index, idx, site_hash_of, ps);
	uint32_t *slot = index_slot(&ps->site_index, site_hash_of(ps, idx),
				    site_eq, ps, u);
	if (*slot == 0) {
		*slot = idx + 1;
		return;
	}
	dt_uprobe_ent_t *first = &ps->ups[*slot - 1];
	if (u->ref_ctr == 0) {
		u->ref_ctr = first->ref_ctr;
	} else if (first->ref_ctr != u->ref_ctr) {
		if (ps->built || first->ref_ctr != 0)
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
	uint32_t *slot = index_slot(&ps->site_index, mix(str_hash(u->path),
							 u->offset),
				    site_eq, ps, u);

	for (uint32_t i = *slot; i != 0; i = ps->ups[i - 1].site_next)
		ps->ups[i - 1].ref_ctr = ref_ctr;
	u->ref_ctr = ref_ctr;
}

static uint64_t ovls_hash_of(const void *set, uint32_t i)
{
	const dt_overlay_ent_t *o = &((const struct dt_progset *)set)->ovls[i];

	return overlay_hash(o->pid, o->cookie);
}

static bool ovls_eq(const void *set, uint32_t i, const void *key)
{
	const dt_overlay_ent_t *o = &((const struct dt_progset *)set)->ovls[i];
	const dt_overlay_ent_t *k = key;

	return o->pid == k->pid && o->cookie == k->cookie;
}

static int64_t uprobe_attach_late(dtrace_hdl_t *dtp, struct dt_progset *ps,
				  uint32_t cookie);
static int kprog_lookup(const struct dt_progset *ps, const dt_uprobe_ent_t *u);
static int kprog_find(struct dt_progset *ps, const dt_uprobe_ent_t *u);
static int kprog_load(dtrace_hdl_t *dtp, dt_kprog_t *kp);
static int attach_perf_entry(dtrace_hdl_t *dtp, struct dt_progset *ps,
			     uint32_t idx);
static int prog_build(dtrace_hdl_t *dtp, dt_kprog_t *kp);
static void generic_only(dtrace_hdl_t *dtp);
static int overlay_update(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o);
static int overlays_write(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o,
			  uint32_t n);
static int overlay_write(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o);
static void emit_entry_trampoline(dt_as_t *as, const int *tramps, int ent,
				  int next);
static bool site_join(dtrace_hdl_t *dtp, struct dt_progset *ps,
		      dt_uprobe_ent_t *u, dt_provider_t *pv,
		      const dtrace_uprobe_t *up);

/* Make u fire in process pid too (0: every process).  Returns whether
 * that needs a link it does not have yet. */
static bool uprobe_add_pid(dt_uprobe_ent_t *u, pid_t pid)
{
	if (u->all)
		return false;
	if (pid == 0) {
		u->all = true;
		return true;
	}
	for (uint32_t i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			return false;
	u->pids = dt_realloc(u->pids, (u->npids + 1) * sizeof(*u->pids));
	u->pids[u->npids++] = (dt_uprobe_pid_t){ .pid = pid, .group = -1 };
	return true;
}

/* The index of (pv, kind) in users[0..n), or -1. */
static int user_index(const dt_site_user_t *users, uint32_t n,
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
	if (user_index(u->users, u->nusers, pv, kind) >= 0)
		return true;
	return u->prog < 0 && u->nusers < DT_SITE_USERS;
}

/* Make (pv, kind) a user of u, kept sorted so that the programs of two
 * sites with the same users are one; stamp it as placed last. */
static void site_user_add(struct dt_progset *ps, dt_uprobe_ent_t *u,
			  dt_provider_t *pv, int kind)
{
	int i = user_index(u->users, u->nusers, pv, kind);

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

/* The slot of the underlying probe key in the index, or the free slot
 * where it goes. */
static uint32_t *uprobe_slot(struct dt_progset *ps, const dt_uprobe_ent_t *key)
{
	index_grow(&ps->ups_index, ps->nups, ups_hash_of, ps);
	return index_slot(&ps->ups_index, uprobe_hash(key), ups_eq, ps, key);
}

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
	uprobe_file_id(ps, &key);
	uint32_t *slot = uprobe_slot(ps, &key);

	if (*slot != 0 && !site_user_fits(&ps->ups[*slot - 1], pv, up->kind) &&
	    !site_join(dtp, ps, &ps->ups[*slot - 1], pv, up)) {
		key.solo_pv = pv;
		key.solo_kind = up->kind;
		slot = uprobe_slot(ps, &key);
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
		site_user_add(ps, &ps->ups[ps->nups - 1], pv, up->kind);
		site_link(dtp, ps, ps->nups - 1);
	} else {
		dt_uprobe_ent_t *u = &ps->ups[*slot - 1];

		site_user_add(ps, u, pv, up->kind);
		if (u->ref_ctr == 0 && up->ref_ctr_offset != 0 && !ps->built)
			site_ref_ctr_set(ps, u, up->ref_ctr_offset);
	}
	*more = uprobe_add_pid(&ps->ups[*slot - 1], pp ? 0 : up->pid);
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
		generic_only(dtp);
		return uprobe_attach_late(dtp, ps, cookie);
	}
	return ps->ups[cookie - 1].prog < 0 ? -ENOENT : (int64_t)cookie;
}

int64_t dt_prog_uprobe(dtrace_hdl_t *dtp, dt_provider_t *pv,
		       const dtrace_uprobe_t *up)
{
	struct dt_progset *ps = progset(dtp);
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
	struct dt_progset *ps = progset(dtp);
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
	struct dt_progset *ps = progset(dtp);
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

/* Probes that may be created while tracing with run-time names. */
#define DT_LATE_PROBES_MAX	8192
static int probedesc_store(dtrace_hdl_t *dtp, const dtrace_probe_t *p);

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
	struct dt_progset *ps = progset(dtp);
	dt_overlay_ent_t *o = NULL;

	if (cookie <= 0 || (uint64_t)cookie > ps->nups || prp == NULL)
		return -EINVAL;
	dt_overlay_ent_t key = { .pid = (uint32_t)pid,
				 .cookie = (uint32_t)cookie };
	index_grow(&ps->ovls_index, ps->novls, ovls_hash_of, ps);
	uint32_t *slot = index_slot(&ps->ovls_index,
		overlay_hash(key.pid, key.cookie), ovls_eq, ps, &key);
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
		generic_only(dtp);
	o->users[o->n] = site_user_of(&ps->ups[cookie - 1], prp->provider);
	o->prids[o->n++] = prp->id;
	if (ps->built && probedesc_store(dtp, prp) < 0)
		return -errno;
	if (ps->built && ps->ups[cookie - 1].relink)
		return overlay_defer(ps, o);
	return ps->built ? overlay_write(dtp, o) : 0;
}

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
static int mstate_map(dtrace_hdl_t *dtp, struct dt_progset *ps)
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
static void mstate_set_all(struct dt_progset *ps, size_t off, uint32_t v)
{
	for (uint32_t i = 0; ps != NULL && ps->mst != NULL &&
			     i < ps->mst_ncpus; i++)
		__atomic_store_n((uint32_t *)(ps->mst + i * ps->mst_stride +
					      off), v, __ATOMIC_SEQ_CST);
}

/* The flags of an underlying probe that make a program of their own. */
#define DT_PROG_FLAGS \
	(DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END | DTRACE_UPROBE_SOFT)

/* Emission shorthands for this file. */
#define EMIT(as, insn)	dt_as_emit((as), (insn))
/* Field offsets as int, for offsets relative to the frame pointer. */
#define OFF(type, field)	((int)offsetof(type, field))

/* Which activity lets this program run: BEGIN runs before the session is
 * active, END while it drains (both read the session's own state), and
 * everything else only while it is active, which it reads in this CPU's
 * mstate (r7): emit_cpu_active_check(). */
static void emit_activity_check(dt_as_t *as, dtrace_map_t *state,
				unsigned flags, int out)
{
	if (!(flags & (DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END)))
		return;
	dt_as_array_lookup(as, state, DT_STATE_ACTIVITY);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
	if (flags & DTRACE_UPROBE_BEGIN)
		dt_as_jump(as, BPF_JNE, DT_R1, DT_ACTIVITY_INACTIVE, out);
	else
		dt_as_jump(as, BPF_JEQ, DT_R1, DT_ACTIVITY_STOPPED, out);
}

/* Leave unless the session is active on this CPU's copy (r7 = mstate).
 * The copies follow the session's activity: dt_prog_start() raises them
 * once it is active, dt_prog_stop() and exit() lower them. */
static void emit_cpu_active_check(dt_as_t *as, unsigned flags, int out)
{
	if (flags & (DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END))
		return;
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, cpu_active)));
	dt_as_jump(as, BPF_JEQ, DT_R1, 0, out);
}

/* The activity becomes act, from any (from < 0) or from that one only (BEGIN
 * leaves the session draining when it called exit()). */
static void emit_set_activity(dt_as_t *as, dtrace_map_t *state, int from,
			      int act)
{
	int skip = dt_as_label(as);

	dt_as_array_lookup(as, state, DT_STATE_ACTIVITY);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, skip);
	if (from >= 0) {
		EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R0, 0));
		dt_as_jump(as, BPF_JNE, DT_R1, from, skip);
	}
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R0, 0, act));
	dt_as_place(as, skip);
}

/*
 * The stages of a firing, in the order a program runs them.  The benchmark
 * (bench/firing.sh) builds programs that stop after one of them, named by
 * DTRACE_BENCH_STOP, to measure what each one costs; a session that is not
 * a benchmark runs them all.
 */
typedef enum dt_stage {
	DT_STAGE_EMPTY,		/* nothing: r0 = 0; exit */
	DT_STAGE_ACTIVITY,	/* the mstate found, the activity checked */
	DT_STAGE_MSTATE,	/* the mstate reset, key set */
	DT_STAGE_TRAMPOLINE,	/* the provider's trampoline */
	DT_STAGE_OVERLAY,	/* the overlying probes found */
	DT_STAGE_DISPATCH,	/* the dispatch, calling no clause */
	DT_STAGE_ALL,		/* the clauses called */
} dt_stage_t;

static const char *const stage_names[] = {
	"empty", "activity", "mstate", "trampoline", "overlay", "dispatch",
};

/* The stage after which programs of probes other than BEGIN and END stop:
 * DTRACE_BENCH_STOP's, else all. */
static dt_stage_t bench_stop(unsigned flags)
{
	const char *s = getenv("DTRACE_BENCH_STOP");

	if (s == NULL || (flags & (DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END)))
		return DT_STAGE_ALL;
	for (int i = 0; i < DT_STAGE_ALL; i++)
		if (strcmp(s, stage_names[i]) == 0)
			return (dt_stage_t)i;
	return DT_STAGE_ALL;
}

/* r7 = this CPU's mstate (the program cannot migrate while it runs), or
 * goto out. */
static void emit_mstate_find(dtrace_hdl_t *dtp, dt_as_t *as, int out)
{
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_smp_processor_id));
	EMIT(as, DT_STORE(BPF_W, DT_FP, -8, DT_R0));
	dt_as_load_map(as, DT_R1, dt_bpf_map_find(dtp, "mstate"));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -8));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, out);
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R0));
}

/* The mstate's (r7) arguments read as 0 where a trampoline fills none. */
static void emit_args_clear(dt_as_t *as)
{
	for (int i = 0; i < DTRACE_ARGS_MAX; i++)
		EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, DTRACE_MSTATE_ARG(i), 0));
}

/* The mstate's regs_ip: the probe site's address, 0 without pt_regs. */
static void emit_key_ip(dt_as_t *as, bool regs)
{
	if (!regs) {
		EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7,
				      OFF(dtrace_mstate_t, regs_ip), 0));
		return;
	}
	EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R6, DTRACE_CTX_IP));
	EMIT(as, DT_STORE(BPF_DW, DT_R7, OFF(dtrace_mstate_t, regs_ip), DT_R1));
}

/* The mstate's key.pid: the firing's process (tgid). */
static void emit_key_pid(dt_as_t *as)
{
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
	EMIT(as, DT_ALU64_IMM(BPF_RSH, DT_R0, 32));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, key.pid), DT_R0));
}

/* The mstate's key.cookie: the underlying probe, the attach cookie's or
 * the program's own (cookie > 0: it serves that one). */
static void emit_key_cookie(dt_as_t *as, int64_t cookie)
{
	if (cookie > 0) {
		EMIT(as, DT_STORE_IMM(BPF_W, DT_R7,
				      OFF(dtrace_mstate_t, key.cookie),
				      (int32_t)cookie));
		return;
	}
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_attach_cookie));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, key.cookie),
			  DT_R0));
}

/* Where emit_firing_key() put each field's instructions: regs_ip's at
 * [ip, pid), key.pid's at [pid, cookie), key.cookie's at [cookie, end). */
typedef struct dt_key_insns {
	uint32_t ip, pid, cookie, end;
} dt_key_insns_t;

/* The public mstate's (r7) regs_ip and default overlay key (tgid, cookie),
 * which trampolines read, each field's instructions apart, for the caller
 * to leave out or move those a trampoline does not use. */
static dt_key_insns_t emit_firing_key(dt_as_t *as, int64_t cookie,
				      bool regs)
{
	dt_key_insns_t at;

	at.ip = as->ninsns;
	emit_key_ip(as, regs);
	at.pid = as->ninsns;
	emit_key_pid(as);
	at.cookie = as->ninsns;
	emit_key_cookie(as, cookie);
	at.end = as->ninsns;
	return at;
}

/* cookie > 0: the one underlying probe the program serves (kp_cookie()),
 * which then needs no attach cookie.  regs: the context is a pt_regs
 * (kp_has_regs()), which gives regs_ip.  The firing key ends it: where its
 * fields' instructions are is returned, for prog_emit() to move key.pid's
 * where the overlay is looked up. */
static dt_key_insns_t emit_prologue(dtrace_hdl_t *dtp, dt_as_t *as,
				    unsigned flags, int64_t cookie,
				    bool regs, int out, dt_stage_t stop)
{
	dt_key_insns_t none = { 0, 0, 0, 0 };

	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	emit_activity_check(as, dt_bpf_map_find(dtp, "state"), flags, out);

	emit_mstate_find(dtp, as, out);
	emit_cpu_active_check(as, flags, out);
	if (stop < DT_STAGE_MSTATE)
		return none;

	emit_args_clear(as);
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, OFF(dt_mstate_t, timestamp),
			      0));
	/* exited and strtok (a firing starts with no strtok string, as in
	 * DTrace), side by side: one store clears both. */
	_Static_assert(OFF(dt_mstate_t, strtok) ==
		       OFF(dt_mstate_t, exited) + 4 &&
		       OFF(dt_mstate_t, exited) % 8 == 0,
		       "exited and strtok share a double word");
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, OFF(dt_mstate_t, exited), 0));
	/* instance and errnum, side by side: one store clears both. */
	_Static_assert(OFF(dtrace_mstate_t, errnum) ==
		       OFF(dtrace_mstate_t, instance) + 4 &&
		       OFF(dtrace_mstate_t, instance) % 8 == 0,
		       "instance and errnum share a double word");
	EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7, OFF(dtrace_mstate_t, instance),
			      0));
	return emit_firing_key(as, cookie, regs);
}

/* r8 = the overlay of (pid, cookie), else of (0, cookie), else leave.
 * With inst (a label, else -1), a (0, cookie) overlay found for a firing
 * whose trampoline set mstate.instance gives way to the process's own
 * (dt_instance.c). */
static void emit_overlay_lookup(dtrace_hdl_t *dtp, dt_as_t *as, int out,
				int inst)
{
	dtrace_map_t *ovl = dt_bpf_map_find(dtp, "overlay");
	int found = dt_as_label(as), found0 = dt_as_label(as);

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			EMIT(as, DT_STORE_IMM(BPF_W, DT_R7,
				 OFF(dtrace_mstate_t, key.pid), 0));
		dt_as_load_map(as, DT_R1, ovl);
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2,
				      OFF(dtrace_mstate_t, key)));
		EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
		dt_as_jump(as, BPF_JNE, DT_R0, 0,
			   pass == 1 && inst >= 0 ? found0 : found);
	}
	dt_as_jump(as, BPF_JA, 0, 0, out);
	if (inst >= 0) {
		int have = dt_as_label(as);

		dt_as_place(as, found0);
		EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7,
				 OFF(dtrace_mstate_t, instance)));
		dt_as_jump(as, BPF_JEQ, DT_R1, 0, have);
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R7));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R8));
		dt_as_call(as, inst);
		dt_as_jump(as, BPF_JEQ, DT_R0, 0, have);
		EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
		dt_as_jump(as, BPF_JA, 0, 0, have);
		dt_as_place(as, found);
		EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
		dt_as_place(as, have);
		return;
	}
	dt_as_place(as, found);
	EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
}

/* Whether clause c calls exit() itself. */
static bool clause_calls_exit(dtrace_hdl_t *dtp, int c)
{
	const dt_compiled_clause_t *cc = dtp->clauses[c];

	for (int i = 0; cc != NULL && i < cc->nacts; i++)
		if (cc->acts[i].kind == DT_ACT_EXIT)
			return true;
	return false;
}

/* Whether the firing may have exited once clause c returns: c calls exit(),
 * or an ERROR clause does, which runs when c faults (and then, as in
 * DTrace, the later clauses of the firing do not run). */
static bool clause_exits(dtrace_hdl_t *dtp, int c)
{
	const dtrace_probe_t *ep = dtp->error_probe;

	if (clause_calls_exit(dtp, c))
		return true;
	for (int e = 0; ep != NULL && e < dtp->nclauses; e++)
		if (dt_cs_has(&ep->clauses, e) && clause_calls_exit(dtp, e))
			return true;
	return false;
}

/*
 * Where a dispatch reads the clause set of the overlay entry it runs: its
 * words at base + off.  r9 holds word cur (-1: none yet); clauses are
 * called in increasing order, so each word is loaded once, before the
 * test of its first clause.  base < 0: every clause called runs (the
 * program knows the set).
 */
typedef struct dt_maskref {
	int base, off;
	int cur;
} dt_maskref_t;

/* r1 = (clause c in the set of m) (non-zero when it is). */
static void emit_clause_test(dt_as_t *as, int c, dt_maskref_t *m)
{
	int bit = c % 64;

	if (m->cur != c / 64) {
		m->cur = c / 64;
		EMIT(as, DT_LOAD(BPF_DW, DT_R9, m->base, m->off + 8 * m->cur));
	}
	if (bit < 31) {
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R9));
		EMIT(as, DT_ALU64_IMM(BPF_AND, DT_R1, 1 << bit));
	} else {
		dt_as_ld_imm64(as, DT_R1, 1ull << bit);
		EMIT(as, DT_ALU64_REG(BPF_AND, DT_R1, DT_R9));
	}
}

/* if (c in m's set) { mst->clause = c; r0 = clause(ctx, mst); if (r0)
 * error(ctx, mst); }  A clause that called exit() ends the firing (goto
 * stop): DTrace runs nothing after the first exit(). */
static void emit_clause_call(dtrace_hdl_t *dtp, dt_as_t *as, int c,
			     int clause_label, int error_label, int stop,
			     dt_maskref_t *m)
{
	int next = dt_as_label(as);

	if (m->base >= 0) {
		emit_clause_test(as, c, m);
		dt_as_jump(as, BPF_JEQ, DT_R1, 0, next);
	}
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dtrace_mstate_t, clause),
			      c));
	/* The enabled probe id as the error messages name it: clause + 1. */
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dt_mstate_t, epid), c + 1));
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
	dt_as_call(as, clause_label);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, next);
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
	dt_as_call(as, error_label);
	dt_as_place(as, next);
	if (clause_exits(dtp, c)) {
		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, exited)));
		dt_as_jump(as, BPF_JNE, DT_R1, 0, stop);
	}
}

/*
 * The dispatch with bpf_loop: the loop's callback holds the only call site
 * of each clause, so the verifier walks each clause once per program
 * rather than once per overlay entry.  The callback receives the entry
 * index and a pointer to three pointers staged on the program's stack:
 * fp-32 overlay value, fp-24 mstate, fp-16 context.
 */
static void emit_dispatch_loop(dt_as_t *as, int callback)
{
	EMIT(as, DT_STORE(BPF_DW, DT_FP, -32, DT_R8));
	EMIT(as, DT_STORE(BPF_DW, DT_FP, -24, DT_R7));
	EMIT(as, DT_STORE(BPF_DW, DT_FP, -16, DT_R6));
	int capped = dt_as_label(as);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, OFF(dt_overlay_t, n)));
	dt_as_jump(as, BPF_JLE, DT_R1, DT_OVERLAY_MAX, capped);
	EMIT(as, DT_MOV64_IMM(DT_R1, DT_OVERLAY_MAX));
	dt_as_place(as, capped);
	dt_as_ld_func(as, DT_R2, callback);
	EMIT(as, DT_MOV64_REG(DT_R3, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R3, -32));
	EMIT(as, DT_MOV64_IMM(DT_R4, 0));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_loop));
}

/* The callback of emit_dispatch_loop(): (index, staged pointers); it
 * returns 1 (no more entries) after exit(). */
static void emit_dispatch_callback(dtrace_hdl_t *dtp, dt_as_t *as,
				   const dt_clauseset_t *clauses,
				   const int *clause_labels,
				   int error_label, int callback,
				   const int *tramps)
{
	int out = dt_as_label(as), stop = dt_as_label(as);
	bool exits = false;
	const uint32_t words = dt_clause_words(dtp->nclauses);
	const int ent = dt_ovl_ent_off(words, 0);
	dt_maskref_t m = { DT_R8, ent + OFF(dt_ovlent_t, clauses), -1 };

	dt_as_place(as, callback);
	EMIT(as, DT_MOV64_REG(DT_R9, DT_R1));
	EMIT(as, DT_LOAD(BPF_DW, DT_R8, DT_R2, 0));
	EMIT(as, DT_LOAD(BPF_DW, DT_R7, DT_R2, 8));
	EMIT(as, DT_LOAD(BPF_DW, DT_R6, DT_R2, 16));
	dt_as_jump(as, BPF_JGE, DT_R9, DT_OVERLAY_MAX, out);
	/* r8 = &ent[index] - offsetof(ent[0]), a bounded map-value offset */
	EMIT(as, DT_ALU64_IMM(BPF_MUL, DT_R9, dt_ovl_ent_size(words)));
	EMIT(as, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R9));
	if (tramps[0] >= 0)
		emit_entry_trampoline(as, tramps, ent, out);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, ent + OFF(dt_ovlent_t, prid)));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid), DT_R1));
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(clauses, c)) {
			emit_clause_call(dtp, as, c, clause_labels[c],
					 error_label, stop, &m);
			exits |= clause_exits(dtp, c);
		}
	dt_as_place(as, out);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
	if (!exits)
		return;
	dt_as_place(as, stop);
	EMIT(as, DT_MOV64_IMM(DT_R0, 1));
	EMIT(as, DT_EXIT());
}

/*
 * The overlying probe of a program that serves one underlying probe with
 * one overlying probe, which the lookup would find for every firing of
 * that probe: fast_prid, 0 for none.  Overlays and underlying
 * probes added while tracing set DT_STATE_GENERIC first (generic_only()),
 * which sends every firing back to the lookup.
 */
static uint32_t fast_prid(dtrace_hdl_t *dtp, const struct dt_progset *ps,
			  const dt_kprog_t *kp)
{
	int prog = (int)(kp - ps->progs);
	uint32_t cookie = 0;

	if (ps->built || kp->soft_cookie > 0 || getenv("DTRACE_BENCH_GENERIC"))
		return 0;
	for (uint32_t i = 0; i < ps->nups; i++) {
		if (ps->ups[i].prog != prog)
			continue;
		if (cookie != 0)
			return 0;
		cookie = i + 1;
	}
	const dt_overlay_ent_t *only = NULL;
	for (uint32_t i = 0; i < ps->novls; i++) {
		if (ps->ovls[i].cookie != cookie)
			continue;
		if (only != NULL)
			return 0;
		only = &ps->ovls[i];
	}
	if (only == NULL || only->n != 1 ||
	    !dt_cs_subset(&dtp->probes[only->prids[0]]->clauses, &kp->clauses))
		return 0;
	/* An overlay of one process is the only one to apply when the site
	 * fires in that process alone; one of every process always is. */
	const dt_uprobe_ent_t *u = &ps->ups[cookie - 1];
	if (only->pid != 0 && (u->all || u->npids != 1 ||
			       (uint32_t)u->pids[0].pid != only->pid))
		return 0;
	return only->prids[0];
}

/* From now on, programs built for one overlay take the general path. */
static void generic_only(dtrace_hdl_t *dtp)
{
	dtrace_map_t *st = dt_bpf_map_find(dtp, "state");
	uint32_t k = DT_STATE_GENERIC;
	uint64_t v = 1;

	if (st != NULL && st->fd >= 0 &&
	    bpf_map_update_elem(st->fd, &k, &v, BPF_ANY) < 0)
		dt_warn(dtp, "failed to update the session's state: %s",
			strerror(errno));
	mstate_set_all(dtp->progs, offsetof(dt_mstate_t, cpu_generic), 1);
}

/* The clauses of probe prid called one after the other, while
 * DT_STATE_GENERIC is 0 (this CPU's copy, cpu_generic; else goto
 * generic); then goto done. */
static void emit_fast_dispatch(dtrace_hdl_t *dtp, dt_as_t *as, uint32_t prid,
			       const int *clause_labels, int error_label,
			       int generic, int done)
{
	const dt_clauseset_t *clauses = &dtp->probes[prid]->clauses;
	dt_maskref_t all = { -1, 0, -1 };

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, cpu_generic)));
	dt_as_jump(as, BPF_JNE, DT_R1, 0, generic);
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid),
			      (int32_t)prid));
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(clauses, c))
			emit_clause_call(dtp, as, c, clause_labels[c],
					 error_label, done, &all);
	dt_as_jump(as, BPF_JA, 0, 0, done);
}

/* Without bpf_loop (kernels before 5.17): the entries unrolled. */
static void emit_dispatch(dtrace_hdl_t *dtp, dt_as_t *as,
			  const dt_clauseset_t *clauses,
			  const int *clause_labels, int error_label,
			  const int *tramps)
{
	int done = dt_as_label(as);
	const uint32_t words = dt_clause_words(dtp->nclauses);

	for (int i = 0; i < DT_OVERLAY_MAX; i++) {
		int next = dt_as_label(as);
		const int ent = dt_ovl_ent_off(words, i);
		dt_maskref_t m = { DT_R8, ent + OFF(dt_ovlent_t, clauses), -1 };

		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, OFF(dt_overlay_t, n)));
		dt_as_jump(as, BPF_JLE, DT_R1, i, done);
		if (tramps[0] >= 0)
			emit_entry_trampoline(as, tramps, ent, next);
		EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8,
				 ent + OFF(dt_ovlent_t, prid)));
		EMIT(as, DT_STORE(BPF_W, DT_R7,
				  OFF(dtrace_mstate_t, prid), DT_R1));
		for (int c = 0; c < dtp->nclauses; c++)
			if (dt_cs_has(clauses, c))
				emit_clause_call(dtp, as, c, clause_labels[c],
						 error_label, done, &m);
		dt_as_place(as, next);
	}
	dt_as_place(as, done);
}

/* The error handler's stack slots, below its record at fp-48, where the
 * firing's probe and clause ids (one word) and enabled probe id wait while
 * the ERROR clauses run. */
#define ERR_SAVED_IDS	(-56)
#define ERR_SAVED_EPID	(-64)

/* Keep what the ERROR clauses overwrite of the firing, or with restore
 * put it back: arg0..arg5 (kept in the mstate's err_argv), and the probe,
 * clause and enabled probe ids (on the handler's stack).  r7: mstate. */
static void emit_error_firing_keep(dt_as_t *as, bool restore)
{
	static const struct { int mst, size, fp; } ids[] = {
		{ OFF(dtrace_mstate_t, prid), BPF_DW, ERR_SAVED_IDS },
		{ OFF(dt_mstate_t, epid), BPF_W, ERR_SAVED_EPID },
	};

	_Static_assert(OFF(dtrace_mstate_t, clause) ==
		       OFF(dtrace_mstate_t, prid) + 4 &&
		       OFF(dtrace_mstate_t, prid) % 8 == 0,
		       "prid and clause are kept as one word");
	for (int i = 0; i < 6; i++) {
		int arg = DTRACE_MSTATE_ARG(i);
		int kept = OFF(dt_mstate_t, err_argv) + 8 * i;

		EMIT(as, DT_LOAD(BPF_DW, DT_R1, DT_R7, restore ? kept : arg));
		EMIT(as, DT_STORE(BPF_DW, DT_R7, restore ? arg : kept, DT_R1));
	}
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		if (restore) {
			EMIT(as, DT_LOAD(ids[i].size, DT_R1, DT_FP, ids[i].fp));
			EMIT(as, DT_STORE(ids[i].size, DT_R7, ids[i].mst,
					  DT_R1));
		} else {
			EMIT(as, DT_LOAD(ids[i].size, DT_R1, DT_R7,
					 ids[i].mst));
			EMIT(as, DT_STORE(ids[i].size, DT_FP, ids[i].fp,
					  DT_R1));
		}
	}
}

/* DTrace's ERROR arguments in arg0..arg5: arg1 EPID, arg2 action, arg3
 * pc, arg4 fault, arg5 address (arg0 is 0).  r7: mstate. */
static void emit_error_args(dt_as_t *as)
{
	static const struct { int from, size; } args[] = {
		{ -1, 0 },
		{ OFF(dtrace_mstate_t, clause), BPF_W },
		{ OFF(dt_mstate_t, fault_action), BPF_W },
		{ OFF(dt_mstate_t, fault_pc), BPF_W },
		{ OFF(dt_mstate_t, fault), BPF_W },
		{ OFF(dt_mstate_t, fault_addr), BPF_DW },
	};

	for (int i = 0; i < 6; i++) {
		if (args[i].from < 0) {
			EMIT(as, DT_MOV64_IMM(DT_R1, 0));
		} else {
			EMIT(as, DT_LOAD(args[i].size, DT_R1, DT_R7,
					 args[i].from));
		}
		if (i == 1)	/* EPID: clause + 1 */
			EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
		EMIT(as, DT_STORE(BPF_DW, DT_R7, DTRACE_MSTATE_ARG(i), DT_R1));
	}
}

/*
 * The ERROR clauses, called from the error handler (r6 context, r7 mstate)
 * as the firing of dtrace:::ERROR.  The faulting firing goes on with its
 * later clauses after them, so what they overwrite is put back.
 */
static void emit_error_clauses(dtrace_hdl_t *dtp, dt_as_t *as,
			       const int *clause_labels)
{
	dtrace_probe_t *ep = dtp->error_probe;

	emit_error_firing_keep(as, false);
	emit_error_args(as);
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid),
			      (int32_t)ep->id));
	for (int c = 0; c < dtp->nclauses; c++) {
		if (!dt_cs_has(&ep->clauses, c))
			continue;
		EMIT(as, DT_STORE_IMM(BPF_W, DT_R7,
				      OFF(dtrace_mstate_t, clause), c));
		EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dt_mstate_t, epid),
				      c + 1));
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		dt_as_call(as, clause_labels[c]);
	}
	emit_error_firing_keep(as, true);
}

/*
 * The error handler: error(ctx, mst).  Counts the fault, writes an error
 * record (header + dt_errrec_t staged on its stack) and runs the clauses
 * enabled on dtrace:::ERROR (emit_error_clauses()); a fault inside an
 * ERROR clause is dropped rather than recursing.
 */
static void emit_error_handler(dtrace_hdl_t *dtp, dt_as_t *as,
			       const int *clause_labels)
{
	const int rec = -48;	/* dt_rechdr_t then dt_errrec_t: 40 bytes */
	const int errp = rec + (int)sizeof(dt_rechdr_t);
	dtrace_probe_t *ep = dtp->error_probe;

	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R2));

	int nocount = dt_as_label(as);
	dt_as_array_lookup(as, dt_bpf_map_find(dtp, "cpuinfo"), 0);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, nocount);
	EMIT(as, DT_MOV64_IMM(DT_R1, 1));
	EMIT(as, DT_XADD(BPF_DW, DT_R0, OFF(dt_cpuinfo_t, errors), DT_R1));
	dt_as_place(as, nocount);

	EMIT(as, DT_STORE_IMM(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, clause),
			      (int32_t)DT_CLAUSE_ERROR));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dtrace_mstate_t, prid)));
	EMIT(as, DT_STORE(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, prid), DT_R1));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_get_smp_processor_id));
	EMIT(as, DT_STORE(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, cpu), DT_R0));
	EMIT(as, DT_STORE_IMM(BPF_W, DT_FP, rec + OFF(dt_rechdr_t, spec), 0));

	static const struct { int from, to, size; } copy[] = {
		{ OFF(dtrace_mstate_t, clause),
		  OFF(dt_errrec_t, clause), BPF_W },
		{ OFF(dt_mstate_t, fault_action),
		  OFF(dt_errrec_t, action), BPF_W },
		{ OFF(dt_mstate_t, fault_pc), OFF(dt_errrec_t, pc),
		  BPF_W },
		{ OFF(dt_mstate_t, fault), OFF(dt_errrec_t, fault),
		  BPF_W },
		{ OFF(dt_mstate_t, fault_addr), OFF(dt_errrec_t, addr),
		  BPF_DW },
	};
	for (size_t i = 0; i < sizeof(copy) / sizeof(copy[0]); i++) {
		EMIT(as, DT_LOAD(copy[i].size, DT_R1, DT_R7, copy[i].from));
		EMIT(as, DT_STORE(copy[i].size, DT_FP, errp + copy[i].to, DT_R1));
	}

	int sent = dt_as_label(as);
	dt_as_load_map(as, DT_R1, dt_bpf_map_find(dtp, "output"));
	EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, rec));
	EMIT(as, DT_MOV64_IMM(DT_R3, sizeof(dt_rechdr_t) + sizeof(dt_errrec_t)));
	EMIT(as, DT_MOV64_IMM(DT_R4, 0));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_ringbuf_output));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, sent);
	dt_as_array_lookup(as, dt_bpf_map_find(dtp, "cpuinfo"), 0);
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, sent);
	EMIT(as, DT_MOV64_IMM(DT_R1, 1));
	EMIT(as, DT_XADD(BPF_DW, DT_R0, OFF(dt_cpuinfo_t, buf_drops),
			 DT_R1));
	dt_as_place(as, sent);

	if (ep != NULL && !dt_cs_empty(&ep->clauses))
		emit_error_clauses(dtp, as, clause_labels);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
}

/* The arguments the clauses of set read (bit i: argv[i]). */
static uint64_t clauses_args_read(dtrace_hdl_t *dtp, const dt_clauseset_t *set)
{
	uint64_t args = 0;

	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(set, c) && dtp->clauses[c] != NULL)
			args |= dtp->clauses[c]->args_read;
	return args;
}

uint64_t dt_prog_args_read(dtrace_provider_t *pv)
{
	return pv->dtp->cur_args_read;
}

/* The underlying probes the program whose trampoline is being emitted
 * serves: the first max cookies into cookies, and how many there are. */
size_t dt_prog_cookies(dtrace_provider_t *pv, int64_t *cookies, size_t max)
{
	dtrace_hdl_t *dtp = pv->dtp;
	const struct dt_progset *ps = progset(dtp);
	size_t n = 0;

	if (dtp->cur_kprog == NULL)
		return 0;
	int prog = (int)(dtp->cur_kprog - ps->progs);
	for (uint32_t i = 0; i < ps->nups; i++) {
		if (ps->ups[i].prog != prog)
			continue;
		if (n < max)
			cookies[n] = (int64_t)i + 1;
		n++;
	}
	return n;
}

/* The one underlying probe kp serves for as long as it lives, or 0: a
 * soft program's, a kernel event's own program's, or that of a uprobe
 * program built for one site (fixed_cookie, see load_programs()). */
static int64_t kp_cookie(const dt_kprog_t *kp)
{
	return kp->soft_cookie > 0 ? kp->soft_cookie : kp->fixed_cookie;
}

/* Whether kp's context is a pt_regs, which gives the site's address: not
 * when the engine runs it itself (soft), nor on a tracepoint's record or
 * a kernel event without registers. */
static bool kp_has_regs(const dt_kprog_t *kp)
{
	return kp->soft_cookie <= 0 && !kp->tracepoint &&
	       dt_kevent_has_regs(kp->kev);
}

int64_t dt_prog_sole_cookie(dtrace_provider_t *pv)
{
	const dt_kprog_t *kp = pv->dtp->cur_kprog;

	return kp != NULL ? kp_cookie(kp) : 0;
}

int dt_prog_prefilter_pass(dtrace_provider_t *pv)
{
	return pv->dtp->cur_pass - 1;
}

static int emit_trampoline_of(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			      const dt_site_user_t *user, dt_as_t *as,
			      int skip, int pass, uint64_t args_read);

/* The trampoline of user in the program of kp; skip: the firing is not
 * for it.  0 or -1 after dt_set_error(). */
static int emit_trampoline(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			   const dt_site_user_t *user, dt_as_t *as, int skip)
{
	return emit_trampoline_of(dtp, kp, user, as, skip, -1,
				  clauses_args_read(dtp, &kp->clauses));
}

/* emit_trampoline(), reading the arguments of args_read (bit i: argv[i])
 * at least; pass: the prefilter's label to run the full path
 * (host->prefilter_pass), else -1. */
static int emit_trampoline_of(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			      const dt_site_user_t *user, dt_as_t *as,
			      int skip, int pass, uint64_t args_read)
{
	dt_provider_t *pv = user->pv;
	dt_plugin_call_t call = dt_plugin_enter(dtp, pv, "trampoline()");

	dtp->cur_args_read = args_read;
	dtp->cur_kprog = kp;
	dtp->cur_pass = pass + 1;
	int rc = pv->ops->trampoline(pv, pv->data, as, user->kind, skip);
	dt_as_cold(as, false);
	dt_plugin_leave(dtp, call);
	dtp->cur_args_read = ~0ull;
	dtp->cur_kprog = NULL;
	dtp->cur_pass = 0;
	if (rc < 0 && dtp->errmsg[0] == '\0')
		dt_set_error(dtp, "provider %s failed to generate its "
			     "trampoline", pv->ops->name);
	return rc < 0 ? -1 : 0;
}

/* The trampoline a program runs before its overlay lookup: its only
 * one, else (a shared site) the one of a provider with templates, whose
 * trampoline sets mstate.instance for the lookup; else none. */
static const dt_site_user_t *kp_first_user(const dt_kprog_t *kp)
{
	if (kp->nusers <= 1)
		return &kp->users[0];
	for (uint32_t i = 0; i < kp->nusers; i++)
		if (kp->users[i].pv->templates)
			return &kp->users[i];
	return NULL;
}

/*
 * At a site that several providers share, each overlay entry's arguments
 * are read by its provider's trampoline, a subprogram of the program:
 * tramp(ctx, mst) fills argv[] (from zero) and returns 0, or 1 when the
 * firing is not for it.  Its own frame keeps the dispatch's registers and
 * stack whatever the trampoline uses.
 */
static int emit_trampoline_sub(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			       dt_as_t *as, uint32_t i, int label)
{
	int skip = dt_as_label(as), done = dt_as_label(as);

	dt_as_place(as, label);
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_R2));
	emit_args_clear(as);
	if (emit_trampoline(dtp, kp, &kp->users[i], as, skip) < 0)
		return -1;
	/* A conditional jump over the skip path: reachable for the
	 * verifier's walk of the code even when the trampoline never skips. */
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, done);
	dt_as_place(as, skip);
	EMIT(as, DT_MOV64_IMM(DT_R0, 1));
	dt_as_place(as, done);
	EMIT(as, DT_EXIT());
	return 0;
}

/* Before the clauses of the overlay entry at r8 + ent (a shared site):
 * call its provider's trampoline (tramps[], by the entry's flags); an
 * entry it is not for goes to next. */
static void emit_entry_trampoline(dt_as_t *as, const int *tramps, int ent,
				  int next)
{
	int have = dt_as_label(as);

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, ent + OFF(dt_ovlent_t, flags)));
	EMIT(as, DT_ALU64_IMM(BPF_RSH, DT_R1, DT_OVL_USER_SHIFT));
	for (int i = 0; i < DT_SITE_USERS && tramps[i] >= 0; i++) {
		int other = dt_as_label(as);

		dt_as_jump(as, BPF_JNE, DT_R1, i, other);
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		dt_as_call(as, tramps[i]);
		dt_as_jump(as, BPF_JNE, DT_R0, 0, next);
		dt_as_jump(as, BPF_JA, 0, 0, have);
		dt_as_place(as, other);
	}
	dt_as_jump(as, BPF_JA, 0, 0, next);
	dt_as_place(as, have);
}

/* ---- chained programs (dt_chain_t) ---- */

/* Subprograms the finished code of a clause holds besides itself: the
 * distinct targets of its calls and of its callbacks' addresses. */
static int code_subprogs(const dt_as_t *code)
{
	int32_t *seen = NULL;
	int n = 0;

	for (uint32_t i = 0; i < code->ninsns; i++) {
		const struct bpf_insn *in = &code->insns[i];
		bool call = in->code == (BPF_JMP | BPF_CALL) &&
			    in->src_reg == BPF_PSEUDO_CALL;
		bool func = in->code == (BPF_LD | BPF_IMM | BPF_DW) &&
			    in->src_reg == BPF_PSEUDO_FUNC;
		int32_t target = (int32_t)i + in->imm + 1;
		int j = 0;

		if (!call && !func)
			continue;
		while (j < n && seen[j] != target)
			j++;
		if (j < n)
			continue;
		seen = dt_realloc(seen, (n + 1) * sizeof(*seen));
		seen[n++] = target;
	}
	free(seen);
	return n;
}

static int clause_subprogs(dtrace_hdl_t *dtp, int c)
{
	return 1 + code_subprogs(&dtp->clauses[c]->code);
}

static int set_subprogs(dtrace_hdl_t *dtp, const dt_clauseset_t *set)
{
	int n = 0;

	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(set, c))
			n += clause_subprogs(dtp, c);
	return n;
}

static void chain_free(dt_kprog_t *kp)
{
	dt_chain_t *ch = kp->chain;

	if (ch == NULL)
		return;
	for (int k = 0; k < DT_CHAIN_MAX; k++)
		dt_cs_free(&ch->parts[k]);
	for (int k = 0; k < ch->nparts; k++)
		dt_as_fini(&ch->as[k]);
	free(ch->parts);
	free(ch->as);
	free(ch);
	kp->chain = NULL;
}

/* Split clauses into parts[] of at most DT_CHAIN_SUBPROGS subprograms
 * each, base (the error handler's) included.  Returns how many, or -1
 * when more than DT_CHAIN_MAX. */
static int chain_split(dtrace_hdl_t *dtp, const dt_clauseset_t *clauses,
		       int base, dt_clauseset_t *parts)
{
	int n = 0, used = 0;

	for (int c = 0; c < dtp->nclauses; c++) {
		if (!dt_cs_has(clauses, c))
			continue;
		int k = clause_subprogs(dtp, c);
		if (used > 0 && base + used + k > DT_CHAIN_SUBPROGS) {
			n++;
			used = 0;
		}
		if (n == DT_CHAIN_MAX)
			return -1;
		dt_cs_add(&parts[n], c);
		used += k;
	}
	return n + 1;
}

/* tail_call(ctx, map, index); falls through when it fails. */
static void emit_tail_call(dt_as_t *as, dtrace_map_t *map, int index)
{
	EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	dt_as_load_map(as, DT_R2, map);
	EMIT(as, DT_MOV64_IMM(DT_R3, index));
	EMIT(as, DT_CALL_HELPER(BPF_FUNC_tail_call));
}

/* The program's entry into its chain: entry 0, part 0. */
static void emit_chain_enter(dt_as_t *as, const dt_chain_t *ch)
{
	EMIT(as, DT_STORE_IMM(BPF_W, DT_R7, OFF(dt_mstate_t, chain_ent), 0));
	emit_tail_call(as, ch->map, 0);
}

/* r8 = the overlay the program found, or goto out: (pid, cookie) of the
 * mstate's key; when the lookup fell back to (0, cookie), first the
 * process's own overlay made from it (instance, dt_instance.c). */
static void emit_chain_lookup(dtrace_hdl_t *dtp, dt_as_t *as, int out)
{
	dtrace_map_t *ovl = dt_bpf_map_find(dtp, "overlay");
	int keyed = dt_as_label(as), have = dt_as_label(as);

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dtrace_mstate_t, key.pid)));
	dt_as_jump(as, BPF_JNE, DT_R1, 0, keyed);
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dtrace_mstate_t, instance)));
	dt_as_place(as, keyed);
	EMIT(as, DT_STORE(BPF_W, DT_FP, -8, DT_R1));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7,
			 OFF(dtrace_mstate_t, key.cookie)));
	EMIT(as, DT_STORE(BPF_W, DT_FP, -4, DT_R1));
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7,
					 OFF(dtrace_mstate_t, key.pid)));
			EMIT(as, DT_STORE(BPF_W, DT_FP, -8, DT_R1));
		}
		dt_as_load_map(as, DT_R1, ovl);
		EMIT(as, DT_MOV64_REG(DT_R2, DT_FP));
		EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -8));
		EMIT(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
		dt_as_jump(as, BPF_JNE, DT_R0, 0, have);
	}
	dt_as_jump(as, BPF_JA, 0, 0, out);
	dt_as_place(as, have);
	EMIT(as, DT_MOV64_REG(DT_R8, DT_R0));
}

/* r8 = &entry chain_ent - its offset, its PRID the firing's; part 0
 * goes to out when no entry is left. */
static void emit_chain_entry(dtrace_hdl_t *dtp, dt_as_t *as, int part,
			     int out)
{
	const uint32_t words = dt_clause_words(dtp->nclauses);
	const int ent = dt_ovl_ent_off(words, 0);

	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, chain_ent)));
	if (part == 0) {
		EMIT(as, DT_LOAD(BPF_W, DT_R2, DT_R8, OFF(dt_overlay_t, n)));
		dt_as_jump_reg(as, BPF_JGE, DT_R1, DT_R2, out);
	}
	dt_as_jump(as, BPF_JGE, DT_R1, DT_OVERLAY_MAX, out);
	EMIT(as, DT_ALU64_IMM(BPF_MUL, DT_R1, dt_ovl_ent_size(words)));
	EMIT(as, DT_ALU64_REG(BPF_ADD, DT_R8, DT_R1));
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R8, ent + OFF(dt_ovlent_t, prid)));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dtrace_mstate_t, prid), DT_R1));
}

/* Part 0 for the next entry. */
static void emit_chain_next_entry(dt_as_t *as, const dt_chain_t *ch)
{
	EMIT(as, DT_LOAD(BPF_W, DT_R1, DT_R7, OFF(dt_mstate_t, chain_ent)));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R1, 1));
	EMIT(as, DT_STORE(BPF_W, DT_R7, OFF(dt_mstate_t, chain_ent), DT_R1));
	emit_tail_call(as, ch->map, 0);
}

/* After part k: the next part, or part 0 for the next entry. */
static void emit_chain_next(dt_as_t *as, const dt_chain_t *ch, int part)
{
	if (part + 1 < ch->nparts) {
		emit_tail_call(as, ch->map, part + 1);
		return;
	}
	emit_chain_next_entry(as, ch);
}

/* BEGIN activates the session, END stops it. */
static void emit_epilogue(dtrace_hdl_t *dtp, dt_as_t *as, unsigned flags)
{
	if (flags & DTRACE_UPROBE_BEGIN)
		emit_set_activity(as, dt_bpf_map_find(dtp, "state"),
				  DT_ACTIVITY_INACTIVE, DT_ACTIVITY_ACTIVE);
	if (flags & DTRACE_UPROBE_END)
		emit_set_activity(as, dt_bpf_map_find(dtp, "state"), -1,
				  DT_ACTIVITY_STOPPED);
}

/* The error handler and the clause subprograms of needed, with labels. */
static void emit_subprograms(dtrace_hdl_t *dtp, dt_as_t *as,
			     const dt_clauseset_t *needed, int error_label,
			     const int *clause_labels)
{
	if (!dt_cs_empty(needed)) {
		dt_as_place(as, error_label);
		emit_error_handler(dtp, as, clause_labels);
	}
	for (int c = 0; c < dtp->nclauses; c++) {
		if (clause_labels[c] < 0)
			continue;
		dt_as_place(as, clause_labels[c]);
		dt_as_append(as, &dtp->clauses[c]->code);
	}
}

/* The code of kp's what ("program", "prefilter") in as, its cold code
 * placed last and its labels resolved.  0 or -1 after dt_set_error(). */
static int kp_finish(dtrace_hdl_t *dtp, const dt_kprog_t *kp, dt_as_t *as,
		     const char *what)
{
	dt_as_cold_place(as);
	if (dt_as_finish(as) != 0) {
		dt_set_error(dtp, "failed to assemble the %s of %s: %s", what,
			     kp->pv->ops->name, as->errmsg);
		return -1;
	}
	return 0;
}

/* Part k of kp's chain into ch->as[k]. */
static int emit_chain_part(dtrace_hdl_t *dtp, dt_kprog_t *kp, int k)
{
	dt_chain_t *ch = kp->chain;
	dt_as_t *as = &ch->as[k];
	const int ent = dt_ovl_ent_off(dt_clause_words(dtp->nclauses), 0);
	dt_maskref_t m = { DT_R8, ent + OFF(dt_ovlent_t, clauses), -1 };
	dt_clauseset_t needed = { 0 };
	int *labels = dt_zalloc((dtp->nclauses + 1) * sizeof(*labels));
	int out = dt_as_label(as), error_label = dt_as_label(as);

	dt_cs_copy(&needed, &ch->parts[k]);
	if (dtp->error_probe)
		dt_cs_or(&needed, &dtp->error_probe->clauses);
	for (int c = 0; c < dtp->nclauses; c++)
		labels[c] = dt_cs_has(&needed, c) ? dt_as_label(as) : -1;
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	emit_mstate_find(dtp, as, out);
	emit_chain_lookup(dtp, as, out);
	emit_chain_entry(dtp, as, k, out);
	/* At a shared site, part 0 runs the entry's trampoline: the later
	 * parts find its arguments in the mstate. */
	int tramps[DT_SITE_USERS], other = dt_as_label(as);
	for (uint32_t i = 0; i < DT_SITE_USERS; i++)
		tramps[i] = k == 0 && kp->nusers > 1 && i < kp->nusers ?
			    dt_as_label(as) : -1;
	if (tramps[0] >= 0)
		emit_entry_trampoline(as, tramps, ent, other);
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(&ch->parts[k], c))
			emit_clause_call(dtp, as, c, labels[c], error_label,
					 out, &m);
	emit_chain_next(as, ch, k);
	if (tramps[0] >= 0) {
		dt_as_place(as, other);
		emit_chain_next_entry(as, ch);
	}
	dt_as_place(as, out);
	emit_epilogue(dtp, as, kp->flags);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
	emit_subprograms(dtp, as, &needed, error_label, labels);
	free(labels);
	dt_cs_free(&needed);
	for (uint32_t i = 0; i < DT_SITE_USERS && tramps[i] >= 0; i++)
		if (emit_trampoline_sub(dtp, kp, as, i, tramps[i]) < 0)
			return -1;
	/* The trampolines' functions of rarely run code, last. */
	if (kp_finish(dtp, kp, as, "program") < 0)
		return -1;
	return 0;
}

/* kp->chain for clauses, which take too many subprograms for one
 * program.  Returns 0 or -1. */
static int chain_build(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		       const dt_clauseset_t *clauses)
{
	struct dt_progset *ps = progset(dtp);
	dt_chain_t *ch = dt_zalloc(sizeof(*ch));
	int base = 1;
	char name[32];

	kp->chain = ch;
	ch->parts = dt_zalloc(DT_CHAIN_MAX * sizeof(*ch->parts));
	if (dtp->error_probe)
		base += set_subprogs(dtp, &dtp->error_probe->clauses);
	ch->nparts = chain_split(dtp, clauses, base, ch->parts);
	if (ch->nparts < 0) {
		ch->nparts = 0;
		dt_set_error(dtp, "the clauses of a %s probe take more than "
			     "%d programs of %d BPF subprograms", kp->pv->ops->name,
			     DT_CHAIN_MAX, DT_CHAIN_SUBPROGS);
		return -1;
	}
	/* A map of its own: a program array takes the type of the first
	 * program loaded with it, and a soft program may be tried as
	 * another type first. */
	snprintf(name, sizeof(name), "chain%d%s", (int)(kp - ps->progs),
		 kp->soft_cookie > 0 ? "s" : "");
	ch->map = dt_bpf_map(dtp, name, BPF_MAP_TYPE_PROG_ARRAY, 4, 4,
			     DT_CHAIN_MAX);
	if (ch->map == NULL)
		return -1;
	ch->as = dt_zalloc(ch->nparts * sizeof(*ch->as));
	for (int k = 0; k < ch->nparts; k++) {
		dt_as_init(&ch->as[k]);
		if (emit_chain_part(dtp, kp, k) < 0)
			return -1;
	}
	return 0;
}

/*
 * The prefilter: a firing whose clauses all have predicates that read
 * only arguments (dt_compiled_clause_t.pred), and all fail, does nothing
 * whatever the session's state.  A program whose clauses are all such
 * first calls prefilter(ctx), which runs the trampoline into a copy of
 * the public mstate on its own stack and tests each predicate there; when
 * none holds, the program returns before touching the mstate (the page
 * every firing otherwise touches, the activity check and the lookups).
 * When one holds, the firing runs in full, predicates again included: the
 * activity check, faults, drops and exit() are the general path's.  The
 * clauses are any the program may call, so that overlays changed while
 * tracing stay covered.  The prefilter is built apart and optimized
 * (dt_opt.c): the arguments a predicate tests are read from the context
 * where it tests them, and the copy goes.  What is left runs inline at the
 * program's entry when it uses no stack and calls no subprogram (one
 * clause that reads no argument again after testing it), else as
 * the program's first subprogram.
 */
#define DT_PREFILTER_MAX	8	/* clauses tested at most */
#define DT_PREFILTER_MST	200	/* the copy of the public mstate:
					   fp - 200 .. fp - 73 */

/* Whether the program of kp, calling clauses, takes a prefilter. */
static bool prefilter_fits(dtrace_hdl_t *dtp, const dt_kprog_t *kp,
			   const dt_clauseset_t *clauses)
{
	int n = 0;

	if (kp->chain != NULL || kp->nusers != 1 || kp->soft_cookie > 0 ||
	    (kp->flags & DT_PROG_FLAGS) || dt_cs_empty(clauses) ||
	    getenv("DTRACE_BENCH_NOPREFILTER"))
		return false;
	for (int c = 0; c < dtp->nclauses; c++) {
		if (!dt_cs_has(clauses, c))
			continue;
		if (dtp->clauses[c] == NULL || dtp->clauses[c]->pred.ninsns == 0 ||
		    ++n > DT_PREFILTER_MAX)
			return false;
	}
	return true;
}

/* The fields of the firing key that a trampoline uses (insns_key_used()). */
enum {
	DT_KEY_IP = 1,		/* regs_ip */
	DT_KEY_PID = 2,		/* key.pid */
	DT_KEY_COOKIE = 4,	/* key.cookie */
	DT_KEY_ALL = 7
};

/* Which fields of the firing key the size bytes at off in the mstate
 * hold. */
static unsigned key_fields_at(int64_t off, int64_t size)
{
	static const struct {
		int64_t off, size;
		unsigned field;
	} fields[] = {
		{ OFF(dtrace_mstate_t, regs_ip), 8, DT_KEY_IP },
		{ OFF(dtrace_mstate_t, key.pid), 4, DT_KEY_PID },
		{ OFF(dtrace_mstate_t, key.cookie), 4, DT_KEY_COOKIE },
	};
	unsigned used = 0;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (off < fields[i].off + fields[i].size &&
		    fields[i].off < off + size)
			used |= fields[i].field;
	return used;
}

/* Whether helper writes, and does not read, the memory of its first
 * argument. */
static bool helper_writes_arg1(int32_t helper)
{
	switch (helper) {
	case BPF_FUNC_probe_read:
	case BPF_FUNC_probe_read_str:
	case BPF_FUNC_probe_read_user:
	case BPF_FUNC_probe_read_user_str:
	case BPF_FUNC_probe_read_kernel:
	case BPF_FUNC_probe_read_kernel_str:
		return true;
	default:
		return false;
	}
}

/* Which fields of the firing key are read (or written, with stores)
 * through the address of the mstate that the instruction at i (rX = r7)
 * makes, DT_KEY_ALL when it cannot be told.  The address is followed
 * until it is given to a helper or overwritten, in straight-line code: it
 * may be moved by constants (rX += K), be the base of loads and stores,
 * and be given to a helper, which uses the memory from it upwards (the
 * probe_read helpers only write their destination, where a field written
 * before the trampoline would not matter).  Any other use, a jump while
 * it lives, and living past the instructions, let it go. */
static unsigned key_address_used(const dt_as_t *as, uint32_t i, uint32_t to,
				 bool stores)
{
	const int x = as->insns[i].dst_reg;
	int64_t k = 0;
	unsigned used = 0;

	for (uint32_t j = i + 1; j < to; j++) {
		const struct bpf_insn *in = &as->insns[j];
		uint8_t cls = BPF_CLASS(in->code);
		bool plain = BPF_MODE(in->code) == BPF_MEM;

		if (in->code == (BPF_JMP | BPF_CALL)) {
			if (x > DT_R5)
				continue;	/* kept across the call */
			if (in->src_reg != 0 || k < 0)	/* not a helper */
				return DT_KEY_ALL;
			if (!(x == DT_R1 && helper_writes_arg1(in->imm)))
				used |= key_fields_at(k, INT16_MAX);
			return used;
		}
		if (cls == BPF_JMP || cls == BPF_JMP32)
			return DT_KEY_ALL;
		if (in->src_reg != x && in->dst_reg != x)
			continue;
		if (in->code == (BPF_ALU64 | BPF_ADD | BPF_K) &&
		    in->dst_reg == x) {
			k += in->imm;
			continue;
		}
		if (plain && cls == BPF_LDX && in->src_reg == x) {
			used |= key_fields_at(k + in->off,
					      dt_insn_access_size(in));
			if (in->dst_reg == x)
				return used;
			continue;
		}
		if (plain && (cls == BPF_ST || cls == BPF_STX) &&
		    in->dst_reg == x && !(cls == BPF_STX && in->src_reg == x)) {
			if (stores)
				used |= key_fields_at(k + in->off,
						      dt_insn_access_size(in));
			continue;
		}
		if ((in->code == (BPF_ALU64 | BPF_MOV | BPF_K) ||
		     in->code == (BPF_LD | BPF_IMM | BPF_DW)) &&
		    in->dst_reg == x)
			return used;
		return DT_KEY_ALL;
	}
	return DT_KEY_ALL;	/* alive past the instructions */
}

/* Which fields of the firing key the instructions [from, to) of as, a
 * trampoline, read (or write, with stores) through r7, the mstate: those
 * it reads not need not be set before it, and those it writes not may be
 * set after it. */
static unsigned insns_key_used(const dt_as_t *as, uint32_t from, uint32_t to,
			       bool stores)
{
	unsigned used = 0;

	for (uint32_t i = from; i < to; i++) {
		const struct bpf_insn *in = &as->insns[i];
		uint8_t cls = BPF_CLASS(in->code);
		bool plain = BPF_MODE(in->code) == BPF_MEM;

		if (in->code == (BPF_ALU64 | BPF_MOV | BPF_X) &&
		    in->src_reg == DT_R7 && in->dst_reg != DT_R7 &&
		    in->off == 0) {
			used |= key_address_used(as, i, to, stores);
			continue;
		}
		bool load = cls == BPF_LDX && in->src_reg == DT_R7 &&
			    in->dst_reg != DT_R7;
		bool store = (cls == BPF_ST || cls == BPF_STX) &&
			     in->dst_reg == DT_R7 && in->src_reg != DT_R7;
		if (plain && (load || store)) {
			if (load || stores)
				used |= key_fields_at(in->off,
						      dt_insn_access_size(in));
			continue;
		}
		if (in->src_reg == DT_R7 || in->dst_reg == DT_R7)
			return DT_KEY_ALL;
	}
	return used;
}

/* The instructions [from, to) of as become no-ops (the verifier drops
 * them): they hold no map reference and no jump to a label. */
static void insns_nop(dt_as_t *as, uint32_t from, uint32_t to)
{
	const struct bpf_insn nop = { .code = BPF_JMP | BPF_JA };

	for (uint32_t i = from; i < to; i++)
		as->insns[i] = nop;
}

/* r0 = ret; exit; at label, when a jump names it: the verifier refuses code
 * it cannot reach. */
static void emit_return_at(dt_as_t *as, int label, int ret)
{
	if (!dt_as_label_used(as, label))
		return;
	dt_as_place(as, label);
	EMIT(as, DT_MOV64_IMM(DT_R0, ret));
	EMIT(as, DT_EXIT());
}

/* prefilter(ctx) at label: non-zero when a predicate of clauses holds, 0
 * when none does or the trampoline skips the firing.  The last predicate
 * runs inline (its return is the prefilter's), the others as subprograms
 * that follow.  0 or -1 after dt_set_error(). */
static int emit_prefilter(dtrace_hdl_t *dtp, dt_kprog_t *kp, dt_as_t *as,
			  const dt_clauseset_t *clauses, int label)
{
	int skip = dt_as_label(as), pass = dt_as_label(as);
	int preds[DT_PREFILTER_MAX], labels[DT_PREFILTER_MAX], n = 0;

	/* The copy lies below the predicate's frame (DT_FRAME_*: the
	 * context and the spill slots, 72 bytes), which the inline
	 * predicate shares; the trampoline ran before it. */
	_Static_assert(DT_PREFILTER_MST - sizeof(dtrace_mstate_t) >= 72,
		       "the public mstate's copy clears the predicate's frame");
	for (int c = 0; c < dtp->nclauses; c++)
		if (dt_cs_has(clauses, c)) {
			labels[n] = dt_as_label(as);
			preds[n++] = c;
		}
	dt_as_place(as, label);
	EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
	EMIT(as, DT_MOV64_REG(DT_R7, DT_FP));
	EMIT(as, DT_ALU64_IMM(BPF_ADD, DT_R7, -DT_PREFILTER_MST));
	/* The arguments the predicates read, 0 where the trampoline fills
	 * none; the trampoline reads the key and regs_ip, set below. */
	uint64_t args = 0;
	for (int i = 0; i < n; i++)
		args |= dtp->clauses[preds[i]]->pred_args;
	for (int i = 0; i < DTRACE_ARGS_MAX; i++)
		if (args & (1ull << i))
			EMIT(as, DT_STORE_IMM(BPF_DW, DT_R7,
					      DTRACE_MSTATE_ARG(i), 0));
	/* The key's fields, each left out after the trampoline when it
	 * uses it not: their helper calls are most of the prefilter. */
	dt_key_insns_t key = emit_firing_key(as, kp_cookie(kp),
					     kp_has_regs(kp));
	if (emit_trampoline_of(dtp, kp, &kp->users[0], as, skip, pass,
			       args) < 0)
		return -1;
	unsigned used = insns_key_used(as, key.end, as->ninsns, false);
	if (!(used & DT_KEY_IP))
		insns_nop(as, key.ip, key.pid);
	if (!(used & DT_KEY_PID))
		insns_nop(as, key.pid, key.cookie);
	if (!(used & DT_KEY_COOKIE))
		insns_nop(as, key.cookie, key.end);
	/* The trampoline falls through to the predicates; its skip and pass
	 * paths follow the last one. */
	for (int i = 0; i < n; i++) {
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
		EMIT(as, DT_MOV64_REG(DT_R2, DT_R7));
		if (i == n - 1) {
			dt_as_append(as, &dtp->clauses[preds[i]]->pred);
			break;
		}
		dt_as_call(as, labels[i]);
		dt_as_jump(as, BPF_JNE, DT_R0, 0, pass);
	}
	emit_return_at(as, skip, 0);
	emit_return_at(as, pass, 1);
	for (int i = 0; i + 1 < n; i++) {
		dt_as_place(as, labels[i]);
		dt_as_append(as, &dtp->clauses[preds[i]]->pred);
	}
	return 0;
}

/* The prefilter, built apart into pf (dt_as_init()ed, empty): finished,
 * then optimized (dt_opt.c), which reads the arguments the predicates
 * test from the context and drops the copy they were read from.
 * 0 or -1 after dt_set_error(). */
static int prefilter_build(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			   const dt_clauseset_t *clauses, dt_as_t *pf)
{
	if (emit_prefilter(dtp, kp, pf, clauses, dt_as_label(pf)) < 0)
		return -1;
	if (kp_finish(dtp, kp, pf, "prefilter") < 0)
		return -1;
	if (!getenv("DTRACE_BENCH_NOPREOPT")) {
		dt_opt_function(pf, 0, true);
		dt_opt_caller_saved_tail(pf, 0, true);
	}
	return 0;
}

/* What the prefilter pf calls (prefilter_regs()). */
enum { PF_CALLS_HELPER = 1, PF_CALLS_SUBPROG = 2 };

/* The registers pf's instructions name, as a mask (the src_reg of a 64-bit
 * immediate load is a kind, not a register); in *calls, what it calls (a
 * function's address taken counts as a subprogram called). */
static unsigned prefilter_regs(const dt_as_t *pf, unsigned *calls)
{
	unsigned used = 0;

	*calls = 0;
	for (uint32_t i = 0; i < pf->ninsns; i++) {
		const struct bpf_insn *in = &pf->insns[i];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			if (in->src_reg == BPF_PSEUDO_FUNC)
				*calls |= PF_CALLS_SUBPROG;
			used |= 1u << in->dst_reg;
			i++;	/* its second half */
			continue;
		}
		if (in->code == (BPF_JMP | BPF_CALL))
			*calls |= in->src_reg != 0 ? PF_CALLS_SUBPROG :
						     PF_CALLS_HELPER;
		used |= 1u << in->dst_reg | 1u << in->src_reg;
	}
	return used;
}

/* The registers insn in writes, as a mask. */
static unsigned insn_writes(const struct bpf_insn *in)
{
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
	case BPF_LD:
	case BPF_LDX:
		return 1u << in->dst_reg;
	default:
		return 0;	/* stores and jumps read their dst_reg */
	}
}

/* The register of r6 to r9 that the prefilter pf copies the context into
 * by its first instruction and writes nowhere else, so that it holds the
 * context all through pf; -1 when there is none. */
static int prefilter_ctx_reg(const dt_as_t *pf)
{
	const struct bpf_insn *first = pf->insns;

	if (pf->ninsns == 0 ||
	    first->code != (BPF_ALU64 | BPF_MOV | BPF_X) || first->off != 0 ||
	    first->src_reg != DT_R1 || first->dst_reg < DT_R6 ||
	    first->dst_reg > DT_R9)
		return -1;
	for (uint32_t i = 1; i < pf->ninsns; i++) {
		const struct bpf_insn *in = &pf->insns[i];
		if (BPF_CLASS(in->code) == BPF_STX &&
		    BPF_MODE(in->code) == BPF_ATOMIC)
			return -1;	/* the fetching forms write src_reg */
		if (insn_writes(in) >> first->dst_reg & 1)
			return -1;
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
			i++;
	}
	return first->dst_reg;
}

/* A register of r6 to r9 that the prefilter pf leaves alone, or that holds
 * the context all through it (prefilter_ctx_reg()), to keep the
 * context in while pf runs inline at the program's entry; -1 when pf may
 * not run there: it calls a subprogram (its exits are then not all its
 * own), uses the stack (the program's whole call chain shares 512 bytes
 * of it, and the prefilter's would count against every clause's), or is
 * too long for a jump from its exits to its end. */
static int prefilter_inline_reg(const dt_as_t *pf)
{
	unsigned calls, used;

	if (getenv("DTRACE_BENCH_NOPREINLINE") || pf->ninsns > INT16_MAX - 2)
		return -1;
	used = prefilter_regs(pf, &calls);
	if ((calls & PF_CALLS_SUBPROG) || (used & 1u << DT_FP))
		return -1;
	int ctx = prefilter_ctx_reg(pf);
	if (ctx >= 0)
		return ctx;
	for (int r = DT_R6; r <= DT_R9; r++)
		if (!(used & 1u << r))
			return r;
	return -1;
}

/* A caller-saved register of r2 to r5 not in *used, then added to it;
 * -1 when none is left. */
static int caller_saved_free(unsigned *used)
{
	for (int r = DT_R2; r <= DT_R5; r++)
		if (!(*used & 1u << r)) {
			*used |= 1u << r;
			return r;
		}
	return -1;
}

/*
 * The prefilter pf, to run inline at the entry of a program whose full
 * path is a function of its own: its uses of r6 to r9 moved to the
 * caller-saved registers it leaves free, so that the entry saves none on
 * the stack (the JIT saves the callee-saved registers a function uses, in
 * its prologue).  Only for a prefilter that calls nothing, which then
 * clobbers no caller-saved register.  *spare: where the context is kept
 * meanwhile, r1 itself when pf does not write it.  false when pf keeps
 * what it had.
 */
static bool prefilter_caller_saved(dt_as_t *pf, int *spare)
{
	unsigned calls, written = 0, used = prefilter_regs(pf, &calls);
	int map[DT_FP + 1];

	if (calls != 0 || (used & 1u << DT_FP))
		return false;
	for (uint32_t i = 0; i < pf->ninsns; i++)
		written |= insn_writes(&pf->insns[i]);
	for (int r = 0; r <= DT_FP; r++)
		map[r] = r;
	for (int r = DT_R6; r <= DT_R9; r++)
		if ((used & 1u << r) && (map[r] = caller_saved_free(&used)) < 0)
			return false;
	*spare = written & 1u << DT_R1 ? caller_saved_free(&used) : DT_R1;
	if (*spare < 0)
		return false;
	for (uint32_t i = 0; i < pf->ninsns; i++) {
		struct bpf_insn *in = &pf->insns[i];

		in->dst_reg = map[in->dst_reg];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
			i++;
		else
			in->src_reg = map[in->src_reg];
	}
	return true;
}

/* What each exit of the prefilter pf does when pf runs inline, in
 * truth[]: -1, jump to the test of its return; or, when the exit returns
 * a known truth (dt_opt_exit_truths()), without the test: end the firing
 * where it is (0) or jump to the full path (1).  The verifier refuses code
 * it cannot reach, so exits skip the test only while some exit still
 * needs it, or an exit of truth 1 reaches the full path.  Returns whether
 * the test stays; truth is NULL when out of memory, and then every exit
 * tests. */
static bool prefilter_exit_paths(const dt_as_t *pf, int8_t *truth)
{
	uint32_t n[3] = { 0, 0, 0 };	/* exits returning -1, 0, 1 */

	if (truth == NULL)
		return true;
	dt_opt_exit_truths(pf, truth);
	for (uint32_t i = 0; i < pf->ninsns; i++)
		if (pf->insns[i].code == (BPF_JMP | BPF_EXIT))
			n[truth[i] + 1]++;
	if (n[0] > 0)
		return true;	/* the test stays, for the exits not known */
	if (n[2] > 0)
		return false;	/* an exit reaches the full path */
	memset(truth, -1, pf->ninsns);	/* none would: every exit tests */
	return true;
}

/* The prefilter pf run inline at the program's entry, the context kept in
 * spare meanwhile: its exits jump to the test of its return, which ends
 * the firing when no predicate holds; or, when the return is known there
 * (prefilter_exit_paths()), end the firing or jump past the test. */
static void emit_prefilter_inline(dt_as_t *as, const dt_as_t *pf, int spare)
{
	int8_t *truth = malloc(pf->ninsns);
	bool test = prefilter_exit_paths(pf, truth);

	if (spare != DT_R1 && spare != prefilter_ctx_reg(pf))
		EMIT(as, DT_MOV64_REG(spare, DT_R1));
	uint32_t base = dt_as_append(as, pf), join = as->ninsns;
	uint32_t full = test ? join + 2 : join;	/* past the test */
	for (uint32_t i = base; i < join && as->err == 0; i++) {
		struct bpf_insn *in = &as->insns[i];
		if (in->code == (BPF_LD | BPF_DW | BPF_IMM))
			i++;
		else if (in->code == (BPF_JMP | BPF_EXIT)) {
			/* An exit known to return 0 ends the firing as it
			 * stands; the others jump. */
			int8_t t = truth != NULL ? truth[i - base] : -1;
			if (t != 0)
				*in = DT_INSN(BPF_JMP | BPF_JA, 0, 0,
					      (int16_t)((t < 0 ? join : full) -
							i - 1), 0);
		}
	}
	free(truth);
	if (test) {
		EMIT(as, DT_INSN(BPF_JMP | BPF_JNE | BPF_K, DT_R0, 0, 1, 0));
		EMIT(as, DT_EXIT());
	}
	if (spare != DT_R1)
		EMIT(as, DT_MOV64_REG(DT_R1, spare));
}

/* prog_build() with the sets of clauses called and needed (those and the
 * ERROR clauses), each with its label; pf: an empty emitter, for the
 * prefilter. */
static int prog_emit_with(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			  const dt_clauseset_t *clauses,
			  const dt_clauseset_t *needed,
			  const int *clause_labels, dt_as_t *pf)
{
	dt_as_t *as = &kp->as;
	int out = dt_as_label(as), error_label = dt_as_label(as);
	dt_stage_t stop = bench_stop(kp->flags);
	int inst = -1;	/* label of the code making process probes */
	int tramps[DT_SITE_USERS];	/* per-entry trampolines (shared site) */
	bool loop = dt_bpf_features(dtp)->loop;
	int callback = dt_as_label(as);

	for (uint32_t i = 0; i < DT_SITE_USERS; i++)
		tramps[i] = kp->nusers > 1 && i < kp->nusers &&
			    kp->chain == NULL && stop >= DT_STAGE_DISPATCH ?
			    dt_as_label(as) : -1;

	/* The prefilter runs inline, else as the program's first
	 * subprogram, at label prefilter. */
	int prefilter = -1, spare = -1;
	if (stop == DT_STAGE_ALL && prefilter_fits(dtp, kp, clauses)) {
		if (prefilter_build(dtp, kp, clauses, pf) < 0)
			return -1;
		spare = prefilter_inline_reg(pf);
		if (spare < 0)
			prefilter = dt_as_label(as);
	}

	if (stop == DT_STAGE_EMPTY)
		goto leave;
	if (spare >= 0) {
		/*
		 * The full path, a function of its own that the entry calls
		 * when a predicate holds: the entry then saves no register
		 * and makes no frame where the prefilter needs neither (a pid
		 * probe's), and a filtered firing runs the prefilter's
		 * instructions and returns, as an empty program would.
		 */
		bool split = !getenv("DTRACE_BENCH_NOSPLIT");
		int full = dt_as_label(as), keep = spare;

		if (split && prefilter_caller_saved(pf, &keep))
			spare = keep;
		emit_prefilter_inline(as, pf, spare);
		if (split) {
			dt_as_call(as, full);
			EMIT(as, DT_EXIT());
			dt_as_place(as, full);
		}
	}
	if (prefilter >= 0) {
		EMIT(as, DT_MOV64_REG(DT_R6, DT_R1));
		dt_as_call(as, prefilter);
		/* Returning here, not at out after the program's body, keeps
		 * a filtered firing on the program's first page of code. */
		int run = dt_as_label(as);
		dt_as_jump(as, BPF_JNE, DT_R0, 0, run);
		EMIT(as, DT_EXIT());
		dt_as_place(as, run);
		EMIT(as, DT_MOV64_REG(DT_R1, DT_R6));
	}
	dt_key_insns_t key = emit_prologue(dtp, as, kp->flags, kp_cookie(kp),
					   kp_has_regs(kp), out, stop);
	if (stop < DT_STAGE_TRAMPOLINE)
		goto leave;
	int skip = dt_as_label(as);
	const dt_site_user_t *first = kp_first_user(kp);
	int tskip = kp->nusers > 1 ? dt_as_label(as) : skip;
	uint32_t tramp = as->ninsns;
	if (first != NULL && emit_trampoline(dtp, kp, first, as, tskip) < 0)
		return -1;
	/* Only the overlay's lookup reads key.pid after a trampoline that
	 * does not: the straight-line dispatch (emit_fast_dispatch()) goes
	 * without it, and its helper call. */
	bool pid_late = !(insns_key_used(as, tramp, as->ninsns, true) &
			  DT_KEY_PID);
	if (pid_late)
		insns_nop(as, key.pid, key.cookie);
	if (tskip != skip)
		dt_as_place(as, tskip);
	if (first != NULL && first->pv->templates && dtp->inst_base)
		inst = dt_as_label(as);
	int generic = dt_as_label(as);
	/* A template probe's process probes are made while tracing, in BPF:
	 * such a program always looks its overlay up; one of a shared site
	 * runs the trampoline of each entry. */
	uint32_t prid = stop == DT_STAGE_ALL && inst < 0 && kp->nusers <= 1 &&
			kp->chain == NULL
				? fast_prid(dtp, progset(dtp), kp) : 0;
	if (prid != 0)
		emit_fast_dispatch(dtp, as, prid, clause_labels, error_label,
				   generic, skip);
	dt_as_place(as, generic);
	if (pid_late)
		emit_key_pid(as);
	if (stop >= DT_STAGE_OVERLAY)
		emit_overlay_lookup(dtp, as, skip, inst);
	if (kp->chain != NULL)
		emit_chain_enter(as, kp->chain);
	else if (stop >= DT_STAGE_DISPATCH && loop)
		emit_dispatch_loop(as, callback);
	else if (stop >= DT_STAGE_DISPATCH)
		emit_dispatch(dtp, as, clauses, clause_labels, error_label,
			      tramps);
	dt_as_place(as, skip);
	emit_epilogue(dtp, as, kp->flags);
leave:
	dt_as_place(as, out);
	EMIT(as, DT_MOV64_IMM(DT_R0, 0));
	EMIT(as, DT_EXIT());
	/* The first subprogram, on the pages of the program's entry. */
	if (prefilter >= 0) {
		dt_as_place(as, prefilter);
		dt_as_append(as, pf);
	}

	if (stop >= DT_STAGE_DISPATCH && loop && kp->chain == NULL)
		emit_dispatch_callback(dtp, as, clauses, clause_labels,
				       error_label, callback, tramps);
	if (inst >= 0)
		dt_inst_emit(dtp, as, inst);
	for (uint32_t i = 0; i < DT_SITE_USERS && tramps[i] >= 0; i++)
		if (emit_trampoline_sub(dtp, kp, as, i, tramps[i]) < 0)
			return -1;
	emit_subprograms(dtp, as, needed, error_label, clause_labels);
	/* The trampolines' functions of rarely run code, last. */
	if (kp_finish(dtp, kp, as, "program") < 0)
		return -1;
	return 0;
}

static int prog_emit(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		     const dt_clauseset_t *clauses,
		     const dt_clauseset_t *needed, const int *clause_labels)
{
	dt_as_t pf;

	dt_as_init(&pf);
	int rc = prog_emit_with(dtp, kp, clauses, needed, clause_labels, &pf);
	dt_as_fini(&pf);
	return rc;
}

/* Build the program of kp into kp->as.  Returns 0 or -1. */
static int prog_build(dtrace_hdl_t *dtp, dt_kprog_t *kp)
{
	dt_clauseset_t clauses = { 0 }, needed = { 0 };

	if (bench_stop(kp->flags) == DT_STAGE_ALL)
		dt_cs_copy(&clauses, &kp->clauses);
	dt_cs_copy(&needed, &clauses);
	if (dtp->error_probe && !dt_cs_empty(&clauses))
		dt_cs_or(&needed, &dtp->error_probe->clauses);
	chain_free(kp);
	if (!dt_cs_empty(&clauses) &&
	    set_subprogs(dtp, &needed) > DT_CHAIN_SUBPROGS) {
		if (chain_build(dtp, kp, &clauses) < 0) {
			dt_cs_free(&clauses);
			dt_cs_free(&needed);
			return -1;
		}
		dt_cs_free(&clauses);	/* the chain's parts call them */
		dt_cs_free(&needed);
	}
	int *clause_labels = dt_zalloc((dtp->nclauses + 1) *
				       sizeof(*clause_labels));
	for (int c = 0; c < dtp->nclauses; c++)
		clause_labels[c] = dt_cs_has(&needed, c) ? dt_as_label(&kp->as)
							 : -1;
	int rc = prog_emit(dtp, kp, &clauses, &needed, clause_labels);
	free(clause_labels);
	dt_cs_free(&clauses);
	dt_cs_free(&needed);
	return rc;
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

/* Whether u is a tracepoint, whose program's context is its record. */
static bool ent_is_tracepoint(const dt_uprobe_ent_t *u)
{
	return u->perf && u->pp.type == PERF_TYPE_TRACEPOINT;
}

/* Whether kp's trampolines are u's users. */
static bool same_users(const dt_kprog_t *kp, const dt_uprobe_ent_t *u)
{
	if (kp->nusers != u->nusers)
		return false;
	for (uint32_t i = 0; i < u->nusers; i++)
		if (kp->users[i].pv != u->users[i].pv ||
		    kp->users[i].kind != u->users[i].kind)
			return false;
	return true;
}

/* Whether program i is one of u's (users, flags).  A program of one
 * underlying probe (fixed_cookie) is no other's. */
static bool kprog_fits(const struct dt_progset *ps, int i,
		       const dt_uprobe_ent_t *u)
{
	const dt_kprog_t *kp = &ps->progs[i];
	unsigned f = u->flags & DT_PROG_FLAGS;
	bool own = kp->fixed_cookie == 0 ? !dt_kevent_per_probe(u->kev)
					 : kp->fixed_cookie == u - ps->ups + 1;

	return own && same_users(kp, u) && kp->flags == f &&
	       kp->perf == u->perf && kp->tracepoint == ent_is_tracepoint(u) &&
	       kp->kev == u->kev;
}

/* The program of u's (users, flags), or -1. */
static int kprog_lookup(const struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	for (int i = 0; i < ps->nprogs; i++)
		if (kprog_fits(ps, i, u))
			return i;
	return -1;
}

/* A new program of u's (users, flags), with no clause yet. */
static int kprog_new(struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	unsigned f = u->flags & DT_PROG_FLAGS;

	ps->progs = dt_realloc(ps->progs, (ps->nprogs + 1) * sizeof(*ps->progs));
	dt_kprog_t *kp = &ps->progs[ps->nprogs];
	memset(kp, 0, sizeof(*kp));
	kp->pv = u->pv;
	kp->kind = u->kind;
	memcpy(kp->users, u->users, sizeof(kp->users));
	kp->nusers = u->nusers;
	kp->flags = f;
	kp->perf = u->perf;
	kp->tracepoint = ent_is_tracepoint(u);
	kp->kev = u->kev;
	kp->fixed_cookie = dt_kevent_per_probe(u->kev) ? u - ps->ups + 1 : 0;
	kp->kname = u->kev ? u->path : NULL;
	kp->fd = -1;
	dt_as_init(&kp->as);
	return ps->nprogs++;
}

/* The program of u's (users, flags), made if there is none. */
static int kprog_find(struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	int i = kprog_lookup(ps, u);

	return i >= 0 ? i : kprog_new(ps, u);
}

/* Add the clauses of the probes of overlay o to set. */
static void overlay_clauses(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o,
			    dt_clauseset_t *set)
{
	for (uint32_t i = 0; i < o->n; i++)
		dt_cs_or(set, &dt_probe_by_id(dtp, o->prids[i])->clauses);
}

/* Whether pv declares provider name prv as it is (not by a pattern). */
static bool names_literally(const dt_provider_t *pv, const char *prv)
{
	const char *const *n = pv->ops->names ? pv->ops->names : &pv->ops->name;

	for (; *n; n++)
		if (!dt_glob_has_meta(*n) && strcmp(*n, prv) == 0)
			return true;
	return false;
}

/* Whether pv may serve probes of provider prv: a pattern perhaps; a name
 * if pv's names match it and no other plugin has it as its own (the
 * rule of dt_provider.c's may_create()). */
static bool may_serve(dtrace_hdl_t *dtp, const dt_provider_t *pv,
		      const char *prv)
{
	const char *const *n = pv->ops->names ? pv->ops->names : &pv->ops->name;
	bool declared = false;

	if (prv == NULL || prv[0] == '\0' || dt_glob_has_meta(prv))
		return true;
	for (; *n && !declared; n++)
		declared = dt_glob_match(*n, prv);
	for (const dt_provider_t *o = dtp->providers; declared && o;
	     o = o->next)
		if (o != pv && names_literally(o, prv))
			return false;
	return declared;
}

/*
 * The clauses a program of pv may need for probes made while tracing: those
 * with a description whose provider pv may serve, but for dtrace:::ERROR's.
 * A probe made while tracing (a program exec'ed, a library dlopen()ed)
 * runs in the program of its kind, which may have been built when tracing
 * began for the probes there were then: one of "a*:::" for a process of
 * a's already running, say.  Built with those probes' clauses alone, it
 * ran nothing for a later probe of "b*:::", which went silent although its
 * uprobe fired.
 */
static void late_clauses_add(dtrace_hdl_t *dtp, const dt_provider_t *pv,
			     dt_clauseset_t *set)
{
	for (int c = 0; c < dtp->nclauses; c++)
		for (int i = 0; i < dtp->clause_ndescs[c]; i++)
			if (may_serve(dtp, pv, dtp->clause_descs[c][i].prv))
				dt_cs_add(set, c);
	if (dtp->error_probe)
		dt_cs_remove_all(set, &dtp->error_probe->clauses);
}

/* Whether pv may make probes while tracing (see provider.h). */
static bool makes_late_probes(const dt_provider_t *pv)
{
	return pv->ops->poll != NULL || pv->ops->notice_process != NULL ||
	       pv->ops->notice_files != NULL;
}

/* Assign each underlying probe to its program, and give each program the
 * clauses of the overlays on its probes, and those of the probes its
 * provider may make while tracing. */
static void group_programs(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	for (uint32_t i = 0; i < ps->nups; i++)
		ps->ups[i].prog = kprog_find(ps, &ps->ups[i]);
	for (uint32_t i = 0; i < ps->novls; i++) {
		dt_uprobe_ent_t *u = &ps->ups[ps->ovls[i].cookie - 1];
		overlay_clauses(dtp, &ps->ovls[i], &ps->progs[u->prog].clauses);
	}
	for (int i = 0; i < ps->nprogs; i++)
		for (uint32_t j = 0; j < ps->progs[i].nusers; j++)
			if (makes_late_probes(ps->progs[i].users[j].pv))
				late_clauses_add(dtp, ps->progs[i].users[j].pv,
						 &ps->progs[i].clauses);
}

static const char *dis_mapname(void *arg, uint32_t insn)
{
	dt_as_t *as = arg;

	for (int i = 0; i < as->nmaprels; i++)
		if (as->maprels[i].insn == insn)
			return as->maprels[i].map->name;
	return "?";
}

/* The one underlying probe of program prog, or 0 if it has several. */
static int64_t one_cookie_of(const struct dt_progset *ps, int prog)
{
	int64_t cookie = 0;

	for (uint32_t i = 0; i < ps->nups; i++) {
		if (ps->ups[i].prog != prog)
			continue;
		if (cookie != 0)
			return 0;
		cookie = i + 1;
	}
	return cookie;
}

/* The one underlying probe of a soft program, or 0 if it has several or
 * one that is not soft. */
static int64_t soft_cookie_of(const struct dt_progset *ps, int prog)
{
	int64_t cookie = one_cookie_of(ps, prog);
	const dt_uprobe_ent_t *u = cookie > 0 ? &ps->ups[cookie - 1] : NULL;

	return u != NULL && (u->flags & DTRACE_UPROBE_SOFT) && !u->perf ?
	       cookie : 0;
}

/*
 * The one site of a uprobe program built when tracing starts, or 0.  Such
 * a program serves that site alone for as long as it lives, in every
 * process it comes to fire in: sites placed later go to another program
 * (kprog_fits()).  It then knows its cookie, and needs neither the attach
 * cookie's helper call nor, in a trampoline of per-site code, a test of
 * the cookie (host->prog_sole_cookie).  A probe on one function or one
 * USDT site is the common case.
 */
static int64_t sole_cookie_of(const struct dt_progset *ps, int prog)
{
	const dt_kprog_t *kp = &ps->progs[prog];

	if (kp->perf || kp->kev || (kp->flags & DTRACE_UPROBE_SOFT) ||
	    getenv("DTRACE_BENCH_NOSOLE"))
		return 0;
	return one_cookie_of(ps, prog);
}

/*
 * A soft program is first tried as a raw-tracepoint program, which the
 * engine runs itself (dt_prog_fire) at no attach cost.  Clause code that
 * reads registers from the context does not verify as one: then it is
 * built again as a uprobe program, and the uprobe on the site is the way
 * it fires.
 */
static int kprog_load_soft(dtrace_hdl_t *dtp, dt_kprog_t *kp, const char *name)
{
	int fd = dt_bpf_prog_load_type(dtp, name, &kp->as,
				       BPF_PROG_TYPE_RAW_TRACEPOINT, 0);
	if (fd >= 0) {
		kp->fd = fd;
		return fd;
	}
	dtp->errmsg[0] = '\0';
	kp->soft_cookie = 0;
	dt_as_fini(&kp->as);
	dt_as_init(&kp->as);
	if (prog_build(dtp, kp) < 0)
		return -1;
	kp->fd = dt_bpf_prog_load(dtp, name, &kp->as);
	return kp->fd;
}

/* Load as, kp's program or a part of its chain, as the type kp wants. */
static int kprog_load_as(dtrace_hdl_t *dtp, dt_kprog_t *kp, const char *name,
			 dt_as_t *as)
{
	if (kp->soft_cookie > 0)
		return dt_bpf_prog_load_type(dtp, name, as,
					     BPF_PROG_TYPE_RAW_TRACEPOINT, 0);
	if (kp->kev)
		return dt_kevent_load(dtp, name, as, kp->kev, kp->kname);
	if (kp->perf)
		return dt_bpf_prog_load_type(dtp, name, as,
					     kp->tracepoint ?
					     BPF_PROG_TYPE_TRACEPOINT :
					     BPF_PROG_TYPE_PERF_EVENT, 0);
	return dt_bpf_prog_load(dtp, name, as);
}

/* The parts of kp's chain loaded and put in its program array. */
static int chain_load(dtrace_hdl_t *dtp, dt_kprog_t *kp, const char *name)
{
	dt_chain_t *ch = kp->chain;

	for (int k = 0; k < ch->nparts; k++) {
		int fd = kprog_load_as(dtp, kp, name, &ch->as[k]);
		uint32_t key = (uint32_t)k;

		if (fd < 0)
			return -1;
		if (bpf_map_update_elem(ch->map->fd, &key, &fd, BPF_ANY) < 0) {
			dt_set_error(dtp, "failed to chain the programs of %s: "
				     "%s", kp->pv->ops->name, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int kprog_load(dtrace_hdl_t *dtp, dt_kprog_t *kp)
{
	char name[16];

	snprintf(name, sizeof(name), "dt_%.8s_%d", kp->pv->ops->name, kp->kind);
	if (kp->soft_cookie > 0)
		kp->fd = kprog_load_soft(dtp, kp, name);
	else
		kp->fd = kprog_load_as(dtp, kp, name, &kp->as);
	if (kp->fd >= 0 && kp->chain != NULL && chain_load(dtp, kp, name) < 0)
		return -1;
	return kp->fd;
}

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
		if (rc == -EACCES && ent_is_tracepoint(u))
			dt_set_error(dtp, "failed to attach to a tracepoint of "
				     "plugin %s: a clause reads registers "
				     "(uregs, ucaller...), which a tracepoint "
				     "does not give", u->pv->path);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Under -S: kp's program, named by its users and kinds, disassembled. */
static void prog_show(dtrace_hdl_t *dtp, dt_kprog_t *kp)
{
	if (!dtp->opt.show_bpf)
		return;
	fputc('\n', stderr);
	for (uint32_t u = 0; u < kp->nusers; u++)
		fprintf(stderr, "%s%s", u ? "+" : "",
			kp->users[u].pv->ops->name);
	fprintf(stderr, " program, kind");
	for (uint32_t u = 0; u < kp->nusers; u++)
		fprintf(stderr, "%s%d", u ? "+" : " ", kp->users[u].kind);
	fprintf(stderr, " (%u insns):\n", kp->as.ninsns);
	dt_dis(stderr, kp->as.insns, kp->as.ninsns, dis_mapname, &kp->as);
}

static int load_programs(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	for (int i = 0; i < ps->nprogs; i++) {
		dt_kprog_t *kp = &ps->progs[i];

		if (kp->flags & DTRACE_UPROBE_SOFT)
			kp->soft_cookie = soft_cookie_of(ps, i);
		else if (kp->fixed_cookie == 0)
			kp->fixed_cookie = sole_cookie_of(ps, i);

		if (prog_build(dtp, kp) < 0)
			return -1;
		prog_show(dtp, kp);
		if (kprog_load(dtp, kp) < 0)
			return -1;
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

/* One request: the links of process pid that the underlying probes from
 * index i on, of u's program, file and return flag, still need.  Late, the
 * sites refused are reported by name and the request goes on. */
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
	uint32_t refused = request_report(dtp, ps, pid, b, n, u->path,
					  rc < 0 && !late);
	if (rc < 0 && late && refused > 0) {
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

/* The first underlying probe at u's site (path, offset), +1. */
static uint32_t site_first(struct dt_progset *ps, const dt_uprobe_ent_t *u)
{
	return *index_slot(&ps->site_index, mix(str_hash(u->path), u->offset),
			   site_eq, ps, u);
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
		for (uint32_t j = site_first(ps, u); j != 0;
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

/* The overlays held back while their sites were linked again. */
static void overlays_flush(dtrace_hdl_t *dtp, struct dt_progset *ps)
{
	for (uint32_t i = 0; ps->ndeferred > 0 && i < ps->novls; i++) {
		dt_overlay_ent_t *o = &ps->ovls[i];

		if (!o->deferred)
			continue;
		o->deferred = false;
		ps->ndeferred--;
		overlay_write(dtp, o);
	}
}

/*
 * Make every link the underlying probes still need: one request per
 * (program, file, process, return flag), then retire the per-process
 * links that a link for every process superseded (retire_mark).  At
 * start (late false) a failure ends it; a late batch reports a failed
 * request as a warning and goes on.
 */
static int attach_pending(dtrace_hdl_t *dtp, struct dt_progset *ps, bool late)
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
	free(retire);
	overlays_flush(dtp, ps);
	free(b.offs);
	free(b.refs);
	free(b.cookies);
	free(b.errs);
	return rc < 0 ? -1 : 0;
}

static void copy_name(char *dst, size_t len, const char *src)
{
	strncpy(dst, src, len - 1);
	dst[len - 1] = '\0';
}

/* The elements map writes take at a time, at most. */
#define DT_MAP_BATCH	256

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
 * DT_LATE_PROBES_MAX of them; beyond, its names read as ""). */
static int probedesc_store(dtrace_hdl_t *dtp, const dtrace_probe_t *p)
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

static int fill_maps(dtrace_hdl_t *dtp, struct dt_progset *ps)
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

/* A kind that had no underlying probe when tracing started (a library
 * loaded later, under -Z): build its program now, with every clause its
 * provider may serve, since the overlays that will use it are not known
 * yet.  Returns its index or
 * -1. */
static int late_load(dtrace_hdl_t *dtp, struct dt_progset *ps, int i);

static int late_program(dtrace_hdl_t *dtp, struct dt_progset *ps,
			const dt_uprobe_ent_t *u)
{
	int i = kprog_find(ps, u);

	late_clauses_add(dtp, ps->progs[i].pv, &ps->progs[i].clauses);
	return late_load(dtp, ps, i);
}

/* Build and load program i, the last one, made while tracing with its
 * clauses; on failure say why and drop it.  Returns i or -1. */
static int late_load(dtrace_hdl_t *dtp, struct dt_progset *ps, int i)
{
	dt_kprog_t *kp = &ps->progs[i];

	if (prog_build(dtp, kp) < 0)
		goto fail;
	prog_show(dtp, kp);
	if (kprog_load(dtp, kp) >= 0)
		return i;
fail:
	dt_warn(dtp, "%s", dtp->errmsg);
	dtp->errmsg[0] = '\0';
	dt_as_fini(&kp->as);
	dt_cs_free(&kp->clauses);
	chain_free(kp);
	ps->nprogs--;
	return -1;
}

/* The program of u's users once one joined them (site_join(), the last
 * of users[]): one of those users, in that order, that calls every clause
 * the program old of the site did and those the newcomer may need, else
 * one built now.  Returns its index or -1. */
static int site_program(dtrace_hdl_t *dtp, struct dt_progset *ps,
			const dt_uprobe_ent_t *u, int old)
{
	dt_clauseset_t need = { 0 };
	int i;

	dt_cs_copy(&need, &ps->progs[old].clauses);
	late_clauses_add(dtp, u->users[u->nusers - 1].pv, &need);
	for (i = 0; i < ps->nprogs; i++)
		if (kprog_fits(ps, i, u) && ps->progs[i].fd >= 0 &&
		    dt_cs_subset(&need, &ps->progs[i].clauses))
			break;
	if (i == ps->nprogs) {
		i = kprog_new(ps, u);
		dt_cs_copy(&ps->progs[i].clauses, &need);
		i = late_load(dtp, ps, i);
	}
	dt_cs_free(&need);
	return i;
}

/*
 * (pv, kind) comes to the underlying probe u after its program was built:
 * while tracing, a process that a pid probe of every process covers
 * starts, with a USDT probe on the pid probe's instruction, say.  It
 * joins u's users, last, so that the overlay entries written so far keep
 * their trampoline's index, and u gets a program of its new users; the
 * next attach_pending() moves u's links to it (relink).  When pv names a
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
	if ((prog = site_program(dtp, ps, u, old)) < 0) {
		u->nusers--;
		return false;
	}
	u->prog = prog;
	u->relink = true;
	ps->relinks = true;
	ps->links_pending = true;
	if (u->ref_ctr == 0 && up->ref_ctr_offset != 0) {
		site_ref_ctr_set(ps, u, up->ref_ctr_offset);
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
	int prog = u->prog >= 0 ? u->prog : kprog_lookup(ps, u);

	if (prog < 0 && (prog = late_program(dtp, ps, u)) < 0)
		return -ENOENT;	/* kept, unattached: asking again says the same */
	u->prog = prog;
	if (ps->batching)
		return cookie;	/* dt_prog_batch_end() attaches it */
	if (attach_pending(dtp, ps, false) < 0) {
		int err = -EINVAL;
		dt_warn(dtp, "%s", dtp->errmsg);
		dtp->errmsg[0] = '\0';
		return err;
	}
	return cookie;
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
	i = user_index(kp->users, kp->nusers, o->users[j].pv, o->users[j].kind);
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

/* The overlay of (pid, cookie), or NULL. */
static const dt_overlay_ent_t *overlay_of(const struct dt_progset *ps,
					  uint32_t pid, uint32_t cookie)
{
	for (uint32_t i = ps->ups[cookie - 1].ovl_first; i != 0;
	     i = ps->ovls[i - 1].cookie_next)
		if (ps->ovls[i - 1].pid == pid)
			return &ps->ovls[i - 1];
	return NULL;
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
		overlay_of(dtp->progs, 0, o->cookie) : NULL;
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

static int overlay_update(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o)
{
	return overlays_write(dtp, o, 1);
}

/* overlay_update(), and for the overlay of every process, the overlays of
 * each process at its site, which hold its probes too. */
static int overlay_write(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o)
{
	const struct dt_progset *ps = dtp->progs;
	int err = overlay_update(dtp, o);

	for (uint32_t i = ps->ups[o->cookie - 1].ovl_first;
	     o->pid == 0 && i != 0; i = ps->ovls[i - 1].cookie_next)
		if (ps->ovls[i - 1].pid != 0 &&
		    overlay_update(dtp, &ps->ovls[i - 1]) < 0)
			err = -1;
	return err;
}

static void provider_failed(dtrace_hdl_t *dtp, dt_provider_t *pv,
			    const char *op, int rc);

int dt_prog_provide_again(dtrace_hdl_t *dtp, dt_provider_t *pv)
{
	uint32_t first = dtp->nprobes + 1;
	int n = 0;

	for (int c = 0; c < dtp->nclauses; c++) {
		for (int i = 0; i < dtp->clause_ndescs[c]; i++) {
			if (dt_probe_desc_elsewhere(dtp, pv,
						    &dtp->clause_descs[c][i]))
				continue;
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
	struct dt_progset *ps = progset(dtp);

	for (uint32_t id = 1; id <= dtp->nprobes; id++) {
		dtrace_probe_t *p = dtp->probes[id];
		if (!dt_cs_empty(&p->clauses) && p != dtp->error_probe &&
		    enable_probe(dtp, p) < 0)
			return -1;
	}
	group_programs(dtp, ps);

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
	if (dt_bpf_maps_create(dtp) < 0 || mstate_map(dtp, ps) < 0)
		return -1;
	if (fill_maps(dtp, ps) < 0 || load_programs(dtp, ps) < 0 ||
	    attach_pending(dtp, ps, false) < 0)
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
	mstate_set_all(dtp->progs, off, 1);
	if (dt_prog_activity(dtp) != DT_ACTIVITY_ACTIVE)
		mstate_set_all(dtp->progs, off, 0);
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
	mstate_set_all(dtp->progs, offsetof(dt_mstate_t, cpu_active), 0);
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
		chain_free(&ps->progs[i]);
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
	struct dt_progset *ps = progset(dtp);

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
	attach_pending(dtp, ps, true);
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
