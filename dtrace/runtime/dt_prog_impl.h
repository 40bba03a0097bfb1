/* SPDX-License-Identifier: MIT */
/*
 * dt_prog_impl.h: what the files of the program builder share (not an
 * interface: dt_program.h is the engine's).
 *
 * The session's underlying probes, overlays and programs (struct
 * dt_progset, dtp->progs), and the functions each file of the builder
 * gives the ones above it.  The flow goes one way: the host entry points
 * record what the session wants, one step makes the kernel match it.
 *
 *	dt_program.c		the host entry points and the session
 *	  dt_prog_sites.c	  record: underlying probes, overlays, and
 *				  the queues of what changed
 *	  dt_prog_reconcile.c	  reconcile: the kernel made to match
 *	    dt_prog_attach.c	    links, refused links, retiring
 *	    dt_prog_maps.c	    the session's maps: overlays, probe names
 *	    dt_prog_load.c	    loading, programs made while tracing
 *	      dt_prog_build.c	      which program serves which site; one
 *				      program put together
 *		dt_prog_chain.c		programs chained by tail calls
 *		dt_prog_prefilter.c	the prefilter
 *		dt_prog_emit.c		the code of one program
 *
 * (the lower files read the record, dt_prog_sites.c's data, and the
 * attach and maps steps ask it where a site's probes are).
 */
#ifndef DT_PROG_IMPL_H
#define DT_PROG_IMPL_H

#include <stddef.h>

#include "dt_impl.h"
#include "dt_hash.h"
#include "dt_program.h"
#include "dt_as.h"
#include "dt_bpf.h"
#include "dt_progdesc.h"
#include "dt_runtime.h"

/* A process an underlying probe fires in, and whether its link exists. */
typedef struct dt_uprobe_pid {
	pid_t pid;
	bool attached;		/* or given up (see "Refused links") */
	uint8_t tries;		/* requests the kernel refused */
	int group;		/* the link's, in ps->groups, else -1 */
	uint32_t image;		/* ps->image when it was last asked for */
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
	bool joined;		/* a user joined: it needs the program of
				   its users (dt_reconcile()) */
	bool queued;		/* on ps->queued_ups */
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
	uint32_t images[DT_OVERLAY_MAX]; /* ps->image when each was last
				   overlaid (see dt_prog_image_next()) */
	uint32_t n;
	bool deferred;		/* written once its site is linked again */
	bool queued;		/* on ps->queued_ovls */
	uint32_t described;	/* prids[0 .. described) have their names
				   in the probedesc map */
	uint32_t cookie_next;	/* the next overlay of the cookie, +1 */
	uint32_t pid_next;	/* the next overlay of the pid (not 0), +1 */
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

struct dt_progset {
	dt_uprobe_ent_t *ups;
	uint32_t nups, ups_cap;
	dt_htab_t ups_index;	/* cookies (dt_prog_sites.c) */
	dt_htab_t site_index;	/* (path, offset) -> first cookie there */
	dt_overlay_ent_t *ovls;
	uint32_t novls, ovls_cap;
	dt_htab_t ovls_index;	/* overlay numbers + 1 */
	dt_htab_t pid_index;	/* (pid, its first overlay + 1), for each
				   process with overlays of its own */
	uint32_t ovl_free;	/* the first free slot of ovls (+1), of a
				   process gone; chained by cookie_next */
	uint32_t *gone;		/* processes found gone by the last sweep */
	uint32_t ngone, gone_cap;
	uint64_t sweep_at;	/* dt_now_ns() of the next sweep */
	uint32_t image;		/* the generation of what is recorded for a
				   process, see dt_prog_image_next() */
	dt_kprog_t *progs;
	int nprogs;
	bool live;		/* dt_prog_build_all() ran: the kernel is
				   to match the record (dt_reconcile()) */
	bool reconciled;	/* its first reconciliation is done */
	bool batching;		/* see dt_prog_batch_begin() */
	bool links_pending;	/* some underlying probe may need a link */
	dt_provider_t *fire_refused; /* dt_prog_fire() said -ENOTSUP to it */
	uint32_t stamp;		/* counts host->sites->uprobe() calls */
	dt_linkset_t *groups;	/* the links of each per-process request */
	int ngroups;
	dt_refused_t *refused;	/* links to ask for again, see "Refused links" */
	uint32_t nrefused;
	uint64_t retry_at;	/* dt_now_ns() from which they are */
	bool relinks;		/* some site has relink set */
	uint32_t ndeferred;	/* overlays with deferred set */
	/* What changed since the last reconciliation (index + 1 each): the
	 * sites that need a link, a program or their links moved, and the
	 * overlays to write (dt_site_record(), dt_overlay_record()). */
	uint32_t *queued_ups, nqueued_ups, queued_ups_cap;
	uint32_t *queued_ovls, nqueued_ovls, queued_ovls_cap;
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

/* The session's set (dtp->progs), made on first use. */
static inline struct dt_progset *dt_progset_of(dtrace_hdl_t *dtp)
{
	if (dtp->progs == NULL)
		dtp->progs = dt_zalloc(sizeof(*dtp->progs));
	return dtp->progs;
}

/* The flags of an underlying probe that make a program of their own. */
#define DT_PROG_FLAGS \
	(DTRACE_UPROBE_BEGIN | DTRACE_UPROBE_END | DTRACE_UPROBE_SOFT)

/* Emission shorthands for the builder's files. */
#define EMIT(as, insn)	dt_as_emit((as), (insn))
/* Field offsets as int, for offsets relative to the frame pointer. */
#define OFF(type, field)	((int)offsetof(type, field))

/* Probes that may be created while tracing with run-time names. */
#define DT_LATE_PROBES_MAX	8192
/* The elements map writes take at a time, at most. */
#define DT_MAP_BATCH	256

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

/* Where dt_emit_firing_key() put each field's instructions: regs_ip's at
 * [ip, pid), key.pid's at [pid, cookie), key.cookie's at [cookie, end). */
typedef struct dt_key_insns {
	uint32_t ip, pid, cookie, end;
} dt_key_insns_t;

/* The fields of the firing key that a trampoline uses
 * (dt_firing_key_used()). */
enum {
	DT_KEY_IP = 1,		/* regs_ip */
	DT_KEY_PID = 2,		/* key.pid */
	DT_KEY_COOKIE = 4,	/* key.cookie */
	DT_KEY_ALL = 7
};

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

/* dt_prog_sites.c */
bool dt_ent_is_tracepoint(const dt_uprobe_ent_t *u);
int dt_user_index(const dt_site_user_t *users, uint32_t n,
		  const dt_provider_t *pv, int kind);
uint32_t dt_site_first(struct dt_progset *ps, const dt_uprobe_ent_t *u);
const dt_overlay_ent_t *dt_overlay_of(const struct dt_progset *ps,
				      uint32_t pid, uint32_t cookie);

/* dt_prog_emit.c */
dt_stage_t dt_bench_stop(unsigned flags);
void dt_emit_mstate_find(dtrace_hdl_t *dtp, dt_as_t *as, int out);
void dt_emit_key_pid(dt_as_t *as);
dt_key_insns_t dt_emit_firing_key(dt_as_t *as, int64_t cookie,
				  bool regs);
unsigned dt_firing_key_used(const dt_as_t *as, uint32_t from, uint32_t to,
			    bool stores);
dt_key_insns_t dt_emit_prologue(dtrace_hdl_t *dtp, dt_as_t *as,
				unsigned flags, int64_t cookie,
				bool regs, int out, dt_stage_t stop);
void dt_emit_overlay_lookup(dtrace_hdl_t *dtp, dt_as_t *as, int out,
			    int inst);
void dt_emit_clause_call(dtrace_hdl_t *dtp, dt_as_t *as, int c,
			 int clause_label, int error_label, int stop,
			 dt_maskref_t *m);
void dt_emit_dispatch_loop(dt_as_t *as, int callback);
void dt_emit_dispatch_callback(dtrace_hdl_t *dtp, dt_as_t *as,
			       const dt_clauseset_t *clauses,
			       const int *clause_labels,
			       int error_label, int callback,
			       const int *tramps);
int64_t dt_one_cookie_of(const struct dt_progset *ps, int prog);
uint32_t dt_fast_prid(dtrace_hdl_t *dtp, const struct dt_progset *ps,
		      const dt_kprog_t *kp);
void dt_emit_fast_dispatch(dtrace_hdl_t *dtp, dt_as_t *as, uint32_t prid,
			   const int *clause_labels, int error_label,
			   int generic, int done);
void dt_emit_dispatch(dtrace_hdl_t *dtp, dt_as_t *as,
		      const dt_clauseset_t *clauses,
		      const int *clause_labels, int error_label,
		      const int *tramps);
int64_t dt_kp_cookie(const dt_kprog_t *kp);
bool dt_kp_has_regs(const dt_kprog_t *kp);
int dt_emit_trampoline(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		       const dt_site_user_t *user, dt_as_t *as, int skip);
int dt_emit_trampoline_of(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			  const dt_site_user_t *user, dt_as_t *as,
			  int skip, int pass, uint64_t args_read);
const dt_site_user_t *dt_kp_first_user(const dt_kprog_t *kp);
int dt_emit_trampoline_sub(dtrace_hdl_t *dtp, dt_kprog_t *kp,
			   dt_as_t *as, uint32_t i, int label);
void dt_emit_entry_trampoline(dt_as_t *as, const int *tramps, int ent,
			      int next);
void dt_emit_epilogue(dtrace_hdl_t *dtp, dt_as_t *as, unsigned flags);
void dt_emit_subprograms(dtrace_hdl_t *dtp, dt_as_t *as,
			 const dt_clauseset_t *needed, int error_label,
			 const int *clause_labels);
int dt_kp_finish(dtrace_hdl_t *dtp, const dt_kprog_t *kp, dt_as_t *as,
		 const char *what);

/* dt_prog_chain.c */
int dt_set_subprogs(dtrace_hdl_t *dtp, const dt_clauseset_t *set);
void dt_chain_free(dt_kprog_t *kp);
void dt_emit_chain_enter(dt_as_t *as, const dt_chain_t *ch);
int dt_chain_build(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		   const dt_clauseset_t *clauses);

/* dt_prog_prefilter.c */
bool dt_prefilter_fits(dtrace_hdl_t *dtp, const dt_kprog_t *kp,
		       const dt_clauseset_t *clauses);
int dt_prefilter_build(dtrace_hdl_t *dtp, dt_kprog_t *kp,
		       const dt_clauseset_t *clauses, dt_as_t *pf);
int dt_prefilter_inline_reg(const dt_as_t *pf);

/* dt_prog_build.c */
bool dt_kprog_fits(const struct dt_progset *ps, int i,
		   const dt_uprobe_ent_t *u);
int dt_kprog_lookup(const struct dt_progset *ps, const dt_uprobe_ent_t *u);
int dt_kprog_new(struct dt_progset *ps, const dt_uprobe_ent_t *u);
int dt_kprog_find(struct dt_progset *ps, const dt_uprobe_ent_t *u);
void dt_late_clauses_add(dtrace_hdl_t *dtp, const dt_provider_t *pv,
			 dt_clauseset_t *set);
int dt_prog_build(dtrace_hdl_t *dtp, dt_kprog_t *kp);
void dt_group_programs(dtrace_hdl_t *dtp, struct dt_progset *ps);

/* dt_prog_load.c */
int dt_load_programs(dtrace_hdl_t *dtp, struct dt_progset *ps);
int dt_late_program(dtrace_hdl_t *dtp, struct dt_progset *ps,
		    const dt_uprobe_ent_t *u);
int dt_site_program(dtrace_hdl_t *dtp, struct dt_progset *ps,
		    const dt_uprobe_ent_t *u, int old);

/* dt_prog_attach.c */
int dt_attach_pending(dtrace_hdl_t *dtp, struct dt_progset *ps, bool late);
uint32_t dt_links_drop_pid(struct dt_progset *ps, pid_t pid, uint32_t before,
			   bool *marked);
void dt_links_close_marked(dtrace_hdl_t *dtp, struct dt_progset *ps,
			   const bool *marked, int ngroups);
bool dt_refused_due(dtrace_hdl_t *dtp);

/* dt_prog_sites.c: the record */
uint32_t dt_site_record(dtrace_hdl_t *dtp, struct dt_progset *ps,
			dt_provider_t *pv, const dtrace_uprobe_t *up,
			const dtrace_perfprobe_t *pp);
int dt_overlay_record(dtrace_hdl_t *dtp, struct dt_progset *ps,
		      uint32_t cookie, uint32_t pid, const dtrace_probe_t *prp);
uint32_t dt_overlays_retire(struct dt_progset *ps, uint32_t pid,
			    uint32_t before);
uint32_t dt_overlays_free_pid(struct dt_progset *ps, uint32_t pid);

/* dt_prog_reconcile.c: the kernel made to match the record (at start,
 * else after each host call; batch_end: the end of a batch, whose refused
 * links are warnings).  0, or -1 at start after dt_set_error(), else
 * -errno of a failed write, or -EINVAL when a link failed (warned). */
int dt_reconcile(dtrace_hdl_t *dtp, bool batch_end);

/* dt_prog_maps.c */
int dt_mstate_map(dtrace_hdl_t *dtp, struct dt_progset *ps);
void dt_mstate_set_all(struct dt_progset *ps, size_t off, uint32_t v);
void dt_generic_only(dtrace_hdl_t *dtp);
int dt_probedesc_store(dtrace_hdl_t *dtp, const dtrace_probe_t *p);
int dt_fill_maps(dtrace_hdl_t *dtp, struct dt_progset *ps);
int dt_overlay_write(dtrace_hdl_t *dtp, const dt_overlay_ent_t *o);

#endif /* DT_PROG_IMPL_H */
