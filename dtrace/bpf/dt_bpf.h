/* SPDX-License-Identifier: MIT */
/*
 * dt_bpf.h: the session's BPF objects: maps, programs, links.
 *
 * Maps are created lazily by name (dtrace_map_t), programs loaded from
 * finished emitters with their map relocations applied, and attached to
 * underlying probes with the best mechanism the kernel has: one
 * uprobe_multi link per (file, program, pid) when the kernel supports it,
 * one perf-event uprobe per site otherwise.  Kernel features are probed once,
 * at the first use.
 */
#ifndef DT_BPF_H
#define DT_BPF_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include "dt_impl.h"
#include "dt_as.h"

struct dtrace_map {
	char *name;
	int fd;
	enum bpf_map_type type;
	uint32_t ksize, vsize, nentries;
	uint32_t flags;		/* BPF_F_* added at creation (BPF_F_MMAPABLE) */
	bool pinned;
	struct dtrace_map *next;
};

typedef struct dt_features {
	bool uprobe_multi;	/* BPF_TRACE_UPROBE_MULTI links (6.6+) */
	bool ringbuf;
	bool attach_cookie;
	bool loop;		/* bpf_loop helper */
	bool movsx;		/* sign-extending moves and signed division
				   (BPF ISA v4, 6.6+) */
	bool probed;
} dt_features_t;

struct dt_bpf_state {
	dtrace_map_t *maps;
	dt_features_t feat;
	bool force_perf_uprobes; /* -x uprobe=perf (tests the fallback) */
	int *links;		/* fds to close at exit: uprobe_multi and raw
				   tracepoint links, whose closes overlap */
	int nlinks, links_cap;
	char *verifier_log;	/* of the last failed load */
	/* Added by dt_bpf.c's owner (additive): */
	int *progs;		/* program fds to close at exit */
	int nprogs, progs_cap;
	bool realized;		/* dt_bpf_maps_create() ran: maps are now
				   created as soon as they are asked for */
	char feat_msg[256];	/* what the kernel lacks, "" if nothing */
	int nop5;		/* dt_bpf_uprobe_nop5(), once nop5_known */
	bool nop5_known;
	int *perf_links;	/* fds to close at exit: links on perf events,
				   which the kernel closes one at a time */
	int nperf_links, perf_links_cap;
};

/* What the kernel makes of a uprobe on a 5-byte nop (dt_nop5.c), asked
 * once: a trap like any other, a call it optimizes into, or such a call
 * that a child forked after it would crash on (which a provider must not
 * make). */
#define DT_NOP5_TRAP		0
#define DT_NOP5_OPTIMIZED	1
#define DT_NOP5_FORK_UNSAFE	(-1)
int dt_bpf_uprobe_nop5(dtrace_hdl_t *dtp);

int dt_bpf_init(dtrace_hdl_t *dtp);
void dt_bpf_fini(dtrace_hdl_t *dtp);
const dt_features_t *dt_bpf_features(dtrace_hdl_t *dtp);

dtrace_map_t *dt_bpf_map(dtrace_hdl_t *dtp, const char *name,
			 enum bpf_map_type type, uint32_t ksize,
			 uint32_t vsize, uint32_t nentries);
dtrace_map_t *dt_bpf_map_find(dtrace_hdl_t *dtp, const char *name);
dtrace_map_t *dt_bpf_map_pinned(dtrace_hdl_t *dtp, const char *path);

/* The licence every program is loaded with.  The tree is MIT; the kernel
 * lets only programs with a GPL-compatible licence call the tracing helpers
 * (bpf_probe_read_user, bpf_get_stack...), and "Dual MIT/GPL" is one it
 * knows (license_is_gpl_compatible()). */
#define DT_BPF_LICENSE	"Dual MIT/GPL"

/* Load a finished program (BPF_PROG_TYPE_KPROBE, DT_BPF_LICENSE).  Returns the
 * program fd or -1 after dt_set_error() with the verifier's complaint. */
int dt_bpf_prog_load(dtrace_hdl_t *dtp, const char *name, dt_as_t *as);

/* The links of some requests, to close before the session ends. */
typedef struct dt_linkset {
	int *fds;
	int n, cap;
} dt_linkset_t;

/* One attachment: a program on many offsets of one file. */
typedef struct dt_attach_req {
	int prog_fd;
	const char *path;
	pid_t pid;		/* 0: every process */
	bool retprobe;
	uint32_t n;
	const uint64_t *offsets;
	const uint64_t *ref_ctr_offsets; /* NULL or n entries */
	const uint64_t *cookies;
	/* Added (optional out): the number of sites the kernel rejected;
	 * each is reported with dt_warn() (file, offset, errno). */
	uint32_t *nfailed;
	/* Added (optional out): the links made are added here too. */
	dt_linkset_t *links;
	/* Optional out, n entries: 0 for a site attached, else the errno the
	 * kernel refused it with.  The caller then reports the refused sites
	 * itself: no warning is printed for them here. */
	int *errs;
} dt_attach_req_t;

/* BPF_TRACE_UPROBE_MULTI, which the system headers predate: the expected
 * attach type of a program to attach with dt_bpf_attach_uprobes() when
 * dt_bpf_use_multi(). */
#define DT_BPF_TRACE_UPROBE_MULTI	48

/* Attach; returns 0 or -errno after dt_set_error().  Links stay open until
 * dt_bpf_fini(); the kernel detaches them when the fds close, also when
 * dtrace is killed. */
int dt_bpf_attach_uprobes(dtrace_hdl_t *dtp, const dt_attach_req_t *req);
/* Close the links of ls now (detaching them) and empty it. */
void dt_bpf_links_close(dtrace_hdl_t *dtp, dt_linkset_t *ls);

/*
 * Additions (owner of dt_bpf.c).
 */

/* Create in the kernel every map asked for so far (their sizes are final
 * from now on); maps asked for later are created at once.  Called once by
 * the lead before programs are loaded.  Returns 0 or -errno after
 * dt_set_error(). */
int dt_bpf_maps_create(dtrace_hdl_t *dtp);

/* Element access on a created map; 0 or -errno (no message). */
int dt_bpf_map_update(const dtrace_map_t *map, const void *key,
		      const void *val);
int dt_bpf_map_lookup(const dtrace_map_t *map, const void *key, void *val);
/* n elements at once: keys and vals, map->ksize and map->vsize bytes
 * each, one after the other.  One system call for many elements where the
 * kernel takes batches (Linux 5.6 for hashes, 5.7 for arrays), else one
 * each.  0 or -errno (no message). */
int dt_bpf_map_update_many(const dtrace_map_t *map, const void *keys,
			   const void *vals, uint32_t n);

/* Whether uprobes are attached with uprobe_multi links (feature present
 * and not forced off by -x uprobe=perf).  dt_bpf_prog_load() loads every
 * program for the mechanism this returns (a uprobe_multi program needs
 * expected_attach_type BPF_TRACE_UPROBE_MULTI and cannot be attached to a
 * perf event, and the other way round), so change -x uprobe only before
 * the first program is loaded. */
bool dt_bpf_use_multi(dtrace_hdl_t *dtp);

/* Load for an explicit mechanism: multi true for uprobe_multi links, false
 * for perf-event attachment (and programs that are only run by tests). */
int dt_bpf_prog_load_for(dtrace_hdl_t *dtp, const char *name, dt_as_t *as,
			 bool multi);

/* Under -S: the finished program as, disassembled on stderr under a line
 * "TITLE (N insns):", its map loads named by their maps; nothing without
 * -S: the program builder's, the exec watch's and the consumer's
 * aggregation zeroing. */
void dt_bpf_prog_show(dtrace_hdl_t *dtp, const char *title,
		      const dt_as_t *as);

/* Load as any program type (perf-event programs of the profile provider,
 * ...), with an expected attach type or 0. */
int dt_bpf_prog_load_type(dtrace_hdl_t *dtp, const char *name, dt_as_t *as,
			  enum bpf_prog_type type, int attach_type);

/* The same, for a program that attaches to the kernel's BTF type btf_id
 * (fentry, fexit). */
int dt_bpf_prog_load_btf(dtrace_hdl_t *dtp, const char *name, dt_as_t *as,
			 enum bpf_prog_type type, int attach_type,
			 uint32_t btf_id);

/* Open the perf event pa on one CPU (-1: any) for every process and run
 * prog_fd on it with cookie.  0 or -errno after dt_set_error(). */
struct perf_event_attr;
int dt_bpf_attach_perf_attr(dtrace_hdl_t *dtp, int prog_fd,
			    struct perf_event_attr *pa, int cpu,
			    uint64_t cookie);
/* Keep a link (a raw tracepoint's: not on a perf event) until
 * dt_bpf_fini() closes it. */
void dt_bpf_link_keep(dtrace_hdl_t *dtp, int fd);

/* tracefs's file ("id", "format") of the tracepoint category:name, under
 * either mount point of tracefs, or NULL (errno ENOENT). */
FILE *dt_bpf_tracefs_open(const char *category, const char *name,
			  const char *file);
/* The id of the tracepoint category:name (the perf event config of a
 * PERF_TYPE_TRACEPOINT event), or -1. */
long dt_bpf_tracepoint_id(const char *category, const char *name);

/* Open a perf event (type, config, sample period) on one CPU for every
 * process and run prog_fd on each sample with cookie.  0 or -errno after
 * dt_set_error(); the link is closed by dt_bpf_fini(). */
int dt_bpf_attach_perf_event(dtrace_hdl_t *dtp, int prog_fd, uint32_t type,
			     uint64_t config, uint64_t period, int cpu,
			     uint64_t cookie);

/* The features the engine cannot work without (ring buffer, attach
 * cookies): 0, or -ENOTSUP after dt_set_error() naming what the kernel
 * lacks. */
int dt_bpf_check_features(dtrace_hdl_t *dtp);

/* 0 when this process may trace: root, or the capabilities the kernel asks
 * of BPF tracing programs and uprobes (CAP_BPF and CAP_PERFMON, or
 * CAP_SYS_ADMIN); else -EPERM with a message naming those it lacks. */
int dt_bpf_check_privilege(dtrace_hdl_t *dtp);

#endif /* DT_BPF_H */
