/* SPDX-License-Identifier: MIT */
/*
 * dt_exec.c: the exec watch.  Providers that cover processes which do not
 * exist yet (usdt's "provider*") need to hear about a new program as soon as
 * it is exec'ed, and about libraries a process loads later, without reading
 * every process's mappings over and over.  A plugin asks with
 * host->sites->watch_exec(); from then on this file
 *
 *   - runs a BPF program on the sched:sched_process_exec tracepoint (one
 *     perf event, attached for every CPU at once), which writes
 *     { pid, DTRACE_NOTICE_EXEC, time } to a ring buffer of its own;
 *   - runs a BPF program on uprobes at the calls of the dynamic loader's
 *     debugger hook (_r_debug.r_brk, i.e. _dl_debug_state in ld.so; on the
 *     hook itself when its calls cannot be found, see dt_rtld.c), which the
 *     loader calls before and after it maps or unmaps libraries (start-up,
 *     dlopen, dlclose); it writes { pid, DTRACE_NOTICE_MAPS, time };
 *   - gives the session's event loop (cmd/dt_session.c) that ring
 *     buffer's descriptor, which it sleeps on with the output ring buffer's
 *     and the others, so an event wakes it at once (BPF_RB_FORCE_WAKEUP),
 *     and when it is called, hands each event to the notice_process() of
 *     every watching provider.
 *
 * Its programs are built with the assembler (dt_as.h) and loaded through
 * dt_bpf.c like the others (-S shows them); its two maps, the ring buffer
 * "dt_exec" and "dt_gated", are the session's (dtp->bpf->maps), and so are
 * its programs and links: dt_bpf_fini() closes them.
 *
 * Providers that must see a new program before it runs also ask for the
 * exec gate (host->sites->gate_exec(), dt_gate.c): execs that map files with USDT
 * notes not seen before wait until notice_files() of every gated provider
 * returned, called by the same loop; the events of the execs it covered are
 * left out (see "Gated execs").
 *
 * Invariants.  Nothing here stops or signals a traced process: without the
 * gate, the new process runs on while providers place their uprobes, so
 * what it fires in the few milliseconds before that is not seen (see the
 * README's USDT section for the measured window).  Events of one batch are
 * deduplicated per (pid, kind), keeping the order of first appearance.
 * Only the ld.so of this dtrace's own mount namespace is watched for
 * library changes.  Nothing here calls the consumer: a library change is
 * told to it by the session's loop, through the callback it passes to
 * dt_exec_poll().  The ring buffer's reader and the gate are owned by
 * struct dt_exec and freed in dt_exec_fini(); the BPF objects are the
 * session's (dt_bpf.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dt_impl.h"
#include "dt_as.h"
#include "dt_bpf.h"
#include "dt_exec.h"
#include "dt_gate.h"
#include "dt_gatewd.h"
#include "dt_procfs.h"
#include "dt_plugcall.h"
#include "dt_program.h"
#include "dt_rtld.h"

#define EXEC_RING_SIZE		(256 * 1024)	/* ~16k events in flight */
#define EXEC_WATCHERS_MAX	16

/*
 * Probes of an old image.  A process's overlays name the probes of the
 * image they were made for, which DTrace removes when the process execs:
 * each exec event retires them (dt_prog_retire_pid()) before any watcher
 * hears of the new image.  An exec the gate held was served before its
 * event: the gated providers made the new image's overlays then, under a
 * new generation (dt_prog_image_next()), and the event that follows
 * retires only what is older.  Until then the old image keeps its
 * probes, and keeps them if the exec fails after the gate (an
 * interpreter missing, a bad ELF file), which has no event.  The gate's
 * recent executions are kept for that (served[]), each for
 * SERVED_FRESH_NS: an exec goes on as soon as the gate answers, so its
 * event is that close; an older entry (an exec that failed, or whose
 * event the exec program left out) is not taken for a later exec.
 */
#define SERVED_MAX		16
#define SERVED_FRESH_NS		(2000 * 1000 * 1000ull)

typedef struct exec_served {
	pid_t pid;		/* 0: a free slot */
	uint32_t image;		/* the generation begun for the new image */
	uint64_t when;		/* dt_now_ns() of the gate's request */
} exec_served_t;
#define EXEC_TP_PID_OFFSET	12	/* "pid_t pid" in the format file */
#define RTLD_SITES_MAX		32	/* calls of the loader's hook */
#define UPROBE_PMU_TYPE_PATH	"/sys/bus/event_source/devices/uprobe/type"

/* One record of the ring buffer, as the BPF programs write it. */
typedef struct exec_event {
	uint32_t pid;
	uint32_t what;		/* DTRACE_NOTICE_* */
	uint64_t ktime;		/* bpf_ktime_get_ns() at the event */
} exec_event_t;

/*
 * Gated execs.  An exec the gate covered (dt_gate.c) needs no event: the
 * gated providers saw its files before it ran.  Nor do the two calls of the
 * loader's hook while that program starts (the libraries it needs, which
 * the gate covered too); later calls (dlopen, dlclose) still do.  Each event
 * costs the machine a wakeup of dtrace and dtrace a look at the process, so
 * the gate marks the pid in dt_gated (GATED_ARMED) before it lets the exec
 * go, when every watching provider is a gated one; the exec program then
 * leaves the event out and counts the start-up calls down
 * (GATED_STARTUP_HOOKS), which the hook's program leaves out in turn.  A
 * value that does not fit (an armed pid whose exec failed, a counter at 0)
 * lets the event through: it may be redundant, never missing.
 */
#define GATED_STARTUP_HOOKS	2
#define GATED_ARMED		3
#define GATED_MAX		8192	/* processes starting at once */

struct dt_exec {
	dtrace_map_t *ring;	/* "dt_exec": BPF_MAP_TYPE_RINGBUF */
	dtrace_map_t *gated_map; /* "dt_gated": pid -> GATED_* */
	struct ring_buffer *rb;	/* the ring's reader, once all is attached */
	dt_provider_t *watchers[EXEC_WATCHERS_MAX];
	int nwatchers;
	dt_gate_t *gate;	/* the exec gate, or NULL */
	dt_provider_t *gated[EXEC_WATCHERS_MAX];	/* notice_files() */
	int ngated;
	bool gate_refused;	/* warned once: no gate */
	exec_served_t served[SERVED_MAX]; /* see "Probes of an old image" */
	uint32_t served_next;	/* the slot the next one takes */
	bool wanted;		/* some request was made */
	bool started;		/* dt_exec_start() ran */
	exec_event_t *batch;	/* events read, not yet handed out */
	int nbatch, batch_cap;
	/* statistics: events handed out, and of those that made a
	 * provider place probes, the latency from the kernel event */
	uint64_t nevents, nplaced, lat_sum_ns, lat_max_ns, wake_sum_ns;
};

static long read_long_file(const char *path)
{
	char buf[32];
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) != NULL)
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

/*
 * The event programs: ctx in R1.  The pid goes to the event at FP-16 (read
 * from the tracepoint's record, or the current tgid for the loader's hook);
 * then, when the exec gate covered this exec (dt_gated holds the pid, see
 * "Gated execs" above), the event is left out; else it is written to the
 * ring buffer with a wakeup.
 */
static void emit_event_pid(dt_as_t *as, enum bpf_prog_type type)
{
	dt_as_emit(as, DT_MOV64_REG(DT_R6, DT_R1));
	if (type == BPF_PROG_TYPE_TRACEPOINT) {
		dt_as_emit(as, DT_LOAD(BPF_W, DT_R2, DT_R6, EXEC_TP_PID_OFFSET));
	} else {
		dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_get_current_pid_tgid));
		dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_R0));
		dt_as_emit(as, DT_ALU64_IMM(BPF_RSH, DT_R2, 32));
	}
	dt_as_emit(as, DT_STORE(BPF_W, DT_FP, -16, DT_R2));
}

/* r0 = dt_gated[pid]: none, or a value that does not fit, goes to
 * l_emit; an event the gate covered returns 0 (its count down). */
static void emit_gated_skip(dt_as_t *as, dtrace_map_t *gated, uint32_t what,
			    int l_emit)
{
	dt_as_load_map(as, DT_R1, gated);
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -16));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_map_lookup_elem));
	dt_as_jump(as, BPF_JEQ, DT_R0, 0, l_emit);
	dt_as_emit(as, DT_LOAD(BPF_W, DT_R1, DT_R0, 0));
	if (what == DTRACE_NOTICE_EXEC) {
		/* armed by the gate: this exec's event is not needed */
		dt_as_jump(as, BPF_JNE, DT_R1, GATED_ARMED, l_emit);
		dt_as_emit(as, DT_STORE_IMM(BPF_W, DT_R0, 0,
					    GATED_STARTUP_HOOKS));
	} else {
		/* one of the start-up calls of the hook: not needed */
		dt_as_jump(as, BPF_JGT, DT_R1, GATED_STARTUP_HOOKS, l_emit);
		dt_as_jump(as, BPF_JEQ, DT_R1, 0, l_emit);
		dt_as_emit(as, DT_ALU64_IMM(BPF_SUB, DT_R1, 1));
		dt_as_emit(as, DT_STORE(BPF_W, DT_R0, 0, DT_R1));
	}
	dt_as_emit(as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_emit(as, DT_EXIT());
}

/* { pid, what, now } to the ring buffer, with a wakeup; return 0. */
static void emit_ring_output(dt_as_t *as, dtrace_map_t *ring, uint32_t what)
{
	dt_as_emit(as, DT_STORE_IMM(BPF_W, DT_FP, -12, (int32_t)what));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_ktime_get_ns));
	dt_as_emit(as, DT_STORE(BPF_DW, DT_FP, -8, DT_R0));
	dt_as_load_map(as, DT_R1, ring);
	dt_as_emit(as, DT_MOV64_REG(DT_R2, DT_FP));
	dt_as_emit(as, DT_ALU64_IMM(BPF_ADD, DT_R2, -16));
	dt_as_emit(as, DT_MOV64_IMM(DT_R3, (int32_t)sizeof(exec_event_t)));
	dt_as_emit(as, DT_MOV64_IMM(DT_R4, BPF_RB_FORCE_WAKEUP));
	dt_as_emit(as, DT_CALL_HELPER(BPF_FUNC_ringbuf_output));
	dt_as_emit(as, DT_MOV64_IMM(DT_R0, 0));
	dt_as_emit(as, DT_EXIT());
}

/* Build and load the program of one kind of event (-S shows it, titled by
 * title); its fd, or -1 after dt_set_error(). */
static int load_prog(dtrace_hdl_t *dtp, struct dt_exec *ex,
		     enum bpf_prog_type type, uint32_t what, int attach_type,
		     const char *title)
{
	dt_as_t as;
	int l_emit, fd = -1;

	dt_as_init(&as);
	l_emit = dt_as_label(&as);
	emit_event_pid(&as, type);
	emit_gated_skip(&as, ex->gated_map, what, l_emit);
	dt_as_place(&as, l_emit);
	emit_ring_output(&as, ex->ring, what);
	if (dt_as_finish(&as) < 0)
		dt_set_error(dtp, "cannot build the program of %s: %s", title,
			     as.errmsg ? as.errmsg : strerror(-as.err));
	else if ((fd = dt_bpf_prog_load_type(dtp, what == DTRACE_NOTICE_EXEC ?
					     "dt_exec" : "dt_rtld", &as, type,
					     attach_type)) >= 0)
		dt_bpf_prog_show(dtp, title, &as);
	dt_as_fini(&as);
	return fd;
}

/* The exec tracepoint, for every process on every CPU. */
static int exec_event_attr(struct perf_event_attr *attr)
{
	long id = dt_bpf_tracepoint_id("sched", "sched_process_exec");

	if (id < 0)
		return -ENOENT;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = (uint64_t)id;
	attr->sample_period = 1;
	return 0;
}

/* The loader's hook itself, as a perf-event uprobe; path must outlive the
 * attachment's opening. */
static int rtld_event_attr(struct perf_event_attr *attr, char *path,
			   size_t pathlen)
{
	uint64_t offset;
	long type = read_long_file(UPROBE_PMU_TYPE_PATH);
	int rc = dt_rtld_hook(path, pathlen, &offset);

	if (rc < 0)
		return rc;
	if (type < 0)
		return -ENOENT;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = (uint32_t)type;
	attr->config1 = (uint64_t)(uintptr_t)path;	/* uprobe_path */
	attr->config2 = offset;				/* probe_offset */
	attr->sample_period = 1;
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct dt_exec *ex = ctx;
	const exec_event_t *ev = data;

	if (size < sizeof(*ev))
		return 0;
	for (int i = 0; i < ex->nbatch; i++)
		if (ex->batch[i].pid == ev->pid &&
		    ex->batch[i].what == ev->what)
			return 0;	/* the first one stands for both */
	if (DT_ARRAY_ROOM(ex->batch, ex->nbatch, ex->batch_cap) < 0)
		return -ENOMEM;
	ex->batch[ex->nbatch++] = *ev;
	return 0;
}

static void exec_close(struct dt_exec *ex)
{
	dt_gate_close(ex->gate, getenv("DTRACE_EXEC_STATS") != NULL);
	if (ex->rb)
		ring_buffer__free(ex->rb);
	free(ex->batch);
	free(ex);
}

/* Load one program and attach it to its perf event (the session keeps
 * the link); -errno with a message on failure. */
static int exec_attach(dtrace_hdl_t *dtp, struct dt_exec *ex,
		       enum bpf_prog_type type, uint32_t what)
{
	const char *what_s = what == DTRACE_NOTICE_EXEC ?
		"the exec tracepoint" : "the dynamic loader's hook";
	char path[PATH_MAX];
	struct perf_event_attr attr;
	int rc, fd = load_prog(dtp, ex, type, what, 0, what ==
			       DTRACE_NOTICE_EXEC ? "exec watch program, exec "
			       "tracepoint" : "exec watch program, loader's "
			       "hook");

	if (fd < 0)
		return -EINVAL;	/* the message says why */
	rc = what == DTRACE_NOTICE_EXEC ? exec_event_attr(&attr) :
		rtld_event_attr(&attr, path, sizeof(path));
	if (rc >= 0)
		rc = dt_bpf_attach_perf_attr(dtp, fd, &attr, 0, 0);
	if (rc < 0)
		dt_set_error(dtp, "cannot attach to %s: %s", what_s,
			     strerror(-rc));
	return rc;
}

/* The loader's hook through the instructions that call it (dt_rtld.c),
 * on one uprobe_multi link, which dt_bpf keeps.  0, or -errno without a
 * message when that cannot be done: the caller then probes the hook. */
static int rtld_attach_calls(dtrace_hdl_t *dtp, struct dt_exec *ex)
{
	char path[PATH_MAX];
	uint64_t hook, sites[RTLD_SITES_MAX], cookies[RTLD_SITES_MAX] = { 0 };

	if (!dt_bpf_use_multi(dtp) || dt_rtld_hook(path, sizeof(path), &hook) < 0)
		return -ENOENT;
	int n = dt_rtld_hook_sites(path, hook, sites, RTLD_SITES_MAX);
	if (n < 0)
		return n;
	int fd = load_prog(dtp, ex, BPF_PROG_TYPE_KPROBE, DTRACE_NOTICE_MAPS,
			   DT_BPF_TRACE_UPROBE_MULTI, "exec watch program, "
			   "calls of the loader's hook");
	uint32_t nfailed = 0;
	dt_attach_req_t req = {
		.prog_fd = fd, .path = path, .n = (uint32_t)n,
		.offsets = sites, .cookies = cookies, .nfailed = &nfailed,
	};
	if (fd < 0 || dt_bpf_attach_uprobes(dtp, &req) < 0 || nfailed > 0) {
		/* A call not probed would be a change not seen: all or
		 * nothing (the links made, and the program, stay harmless
		 * until the end). */
		dtp->errmsg[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

/* The watch's state, its kernel side not set up yet. */
static struct dt_exec *exec_new(dtrace_hdl_t *dtp)
{
	struct dt_exec *ex = calloc(1, sizeof(*ex));

	if (ex == NULL)
		dt_set_error(dtp, "out of memory");
	return ex;
}

/* The ring buffer and the two programs; 0 or -1 after dt_set_error(). */
static int exec_open_kernel(dtrace_hdl_t *dtp, struct dt_exec *ex)
{
	ex->ring = dt_bpf_map(dtp, "dt_exec", BPF_MAP_TYPE_RINGBUF, 0, 0,
			      EXEC_RING_SIZE);
	ex->gated_map = dt_bpf_map(dtp, "dt_gated", BPF_MAP_TYPE_LRU_HASH,
				   sizeof(uint32_t), sizeof(uint32_t),
				   GATED_MAX);
	if (ex->ring == NULL || ex->gated_map == NULL)
		return -1;
	if (exec_attach(dtp, ex, BPF_PROG_TYPE_TRACEPOINT,
			DTRACE_NOTICE_EXEC) < 0 ||
	    (rtld_attach_calls(dtp, ex) < 0 &&
	     exec_attach(dtp, ex, BPF_PROG_TYPE_KPROBE,
			 DTRACE_NOTICE_MAPS) < 0))
		return -1;
	ex->rb = ring_buffer__new(ex->ring->fd, on_event, ex, NULL);
	if (ex->rb == NULL) {
		dt_set_error(dtp, "cannot read the exec watch's buffer: %s",
			     strerror(errno));
		return -1;
	}
	return 0;
}

static bool gate_wanted(const dtrace_hdl_t *dtp)
{
	return !dtp->opt.no_execgate;
}

/* The ELF sections that make a file matter to the gated providers, each
 * once, NULL-ended, in sections[max]. */
static void gate_sections(const struct dt_exec *ex, const char **sections,
			  int max)
{
	int n = 0;

	for (int i = 0; i < ex->ngated; i++) {
		for (const char *const *sec = ex->gated[i]->ops->gate_sections;
		     sec && *sec && n < max - 1; sec++) {
			int j = 0;
			while (j < n && strcmp(sections[j], *sec) != 0)
				j++;
			if (j == n)
				sections[n++] = *sec;
		}
	}
	sections[n] = NULL;
}

/* Set up what the watchers asked for: the gate first (a program that
 * starts from now on is covered), then the exec watch.  0 or -1. */
static int exec_activate(dtrace_hdl_t *dtp, struct dt_exec *ex)
{
	if (ex->ngated > 0 && ex->gate == NULL && !ex->gate_refused &&
	    gate_wanted(dtp)) {
		const char *sections[16];
		char msg[256];

		gate_sections(ex, sections, 16);
		ex->gate = dt_gate_open(sections, msg, sizeof(msg));
		if (ex->gate == NULL) {
			ex->gate_refused = true;
			dt_warn(dtp, "the exec gate is not available (%s): "
				"programs started from now on are traced a "
				"few milliseconds after exec", msg);
		}
	}
	if (ex->rb == NULL && exec_open_kernel(dtp, ex) < 0)
		return -1;
	if (ex->gate != NULL)
		dt_gate_arm(ex->gate, ex->ngated == ex->nwatchers ?
				      ex->gated_map->fd : -1, GATED_ARMED);
	return 0;
}

/* Add pv to a list of providers unless it is there. */
static int watchers_add(dtrace_hdl_t *dtp, dt_provider_t **list, int *n,
			dt_provider_t *pv)
{
	for (int i = 0; i < *n; i++)
		if (list[i] == pv)
			return 0;
	if (*n == EXEC_WATCHERS_MAX) {
		dt_set_error(dtp, "too many providers watch processes");
		return -ENOSPC;
	}
	list[(*n)++] = pv;
	return 0;
}

/* Before tracing starts, a request is only noted: dt_exec_start() acts on
 * it before BEGIN fires.  Afterwards it takes effect at once. */
static int exec_request(dtrace_hdl_t *dtp, dt_provider_t *pv, bool gate)
{
	if (dtp->exec == NULL && (dtp->exec = exec_new(dtp)) == NULL)
		return -ENOMEM;
	struct dt_exec *ex = dtp->exec;
	int rc = 0;
	ex->wanted = true;
	if (pv != NULL && pv->ops->notice_process != NULL)
		rc = watchers_add(dtp, ex->watchers, &ex->nwatchers, pv);
	if (rc == 0 && gate && pv != NULL && pv->ops->notice_files != NULL &&
	    pv->ops->gate_sections == NULL) {
		dt_set_error(dtp, "plugin %s asks for the exec gate but names "
			     "no ELF sections that matter to it (gate_sections)",
			     pv->path);
		rc = -EINVAL;
	}
	if (rc == 0 && gate && pv != NULL && pv->ops->notice_files != NULL)
		rc = watchers_add(dtp, ex->gated, &ex->ngated, pv);
	if (rc == 0 && ex->started && exec_activate(dtp, ex) < 0)
		rc = -ENODEV;	/* the message says why */
	return rc;
}

int dt_exec_watch(dtrace_hdl_t *dtp, dt_provider_t *pv)
{
	return exec_request(dtp, pv, false);
}

int dt_exec_gate(dtrace_hdl_t *dtp, dt_provider_t *pv)
{
	return exec_request(dtp, pv, true);
}

/* The state is made even when nothing was asked yet, so that a request
 * made while tracing (a provider's start(), or an enable() of provide_again)
 * knows that it takes effect at once. */
int dt_exec_start(dtrace_hdl_t *dtp)
{
	if (dtp->exec == NULL && (dtp->exec = exec_new(dtp)) == NULL)
		return -1;
	struct dt_exec *ex = dtp->exec;

	ex->started = true;
	return ex->wanted ? exec_activate(dtp, ex) : 0;
}

void dt_exec_stop(dtrace_hdl_t *dtp)
{
	struct dt_exec *ex = dtp->exec;

	if (ex == NULL || ex->gate == NULL)
		return;
	dt_gate_close(ex->gate, getenv("DTRACE_EXEC_STATS") != NULL);
	ex->gate = NULL;
}

/* What a watching provider is told: an event of the exec watch, or (paths
 * not NULL) the files of an exec the gate holds. */
typedef struct exec_notice {
	pid_t pid;
	int what;			/* DTRACE_NOTICE_* */
	const char *const *paths;
	int npaths;
} exec_notice_t;

/* Tell pv, its underlying probes placed in one batch.  Returns what the
 * provider returned; a negative value after dt_set_error(). */
static int notify(dtrace_hdl_t *dtp, dt_provider_t *pv,
		  const exec_notice_t *n)
{
	dt_plugin_call_t call = dt_plugin_enter(dtp, pv, n->paths ?
						"notice_files()" :
						"notice_process()");

	dt_prog_batch_begin(dtp);
	int rc = n->paths ?
		pv->ops->notice_files(pv, pv->data, n->pid, n->paths,
				      n->npaths) :
		pv->ops->notice_process(pv, pv->data, n->pid, n->what);
	dt_prog_batch_end(dtp);
	dt_plugin_leave(dtp, call);
	if (rc < 0 && dtp->errmsg[0] == '\0')
		dt_set_error(dtp, "provider %s failed: %s", pv->ops->name,
			     strerror(-rc));
	return rc;
}

/* The gate's request: files a new program maps, to every gated provider.
 * How many probes they placed, or -1. */
static int gate_serve(dtrace_hdl_t *dtp, int pid, const char *const *paths,
		      int npaths)
{
	struct dt_exec *ex = dtp->exec;
	exec_notice_t n = { .pid = (pid_t)pid, .paths = paths,
			    .npaths = npaths };
	int placed = 0;

	ex->served[ex->served_next++ % SERVED_MAX] = (exec_served_t){
		.pid = (pid_t)pid, .image = dt_prog_image_next(dtp),
		.when = dt_now_ns() };
	for (int i = 0; i < ex->ngated; i++) {
		int rc = notify(dtp, ex->gated[i], &n);
		if (rc < 0)
			return -1;
		placed += rc;
	}
	return placed;
}

/* An exec made a provider place probes after the fact although the gate
 * is open: the gate did not hold it, and what the program fired before is
 * lost, so it is named.  A program of another mount namespace is out of
 * the gate's reach (its filesystems are not marked, see dt_gate.c); in
 * this one, its filesystem was mounted after the gate opened, or the
 * watchdog let it go while dtrace could not answer (the gate names those
 * itself when it is first to place their probes).  dtrace's own children
 * (-c, system()) are not held by design. */
static void exec_report_ungated(const struct dt_exec *ex,
				const exec_event_t *ev)
{
	char name[64], exe[PATH_MAX];
	dt_procfs_stat_t st;

	if (ex->gate == NULL || ev->what != DTRACE_NOTICE_EXEC ||
	    dt_procfs_stat((pid_t)ev->pid, &st) != 0 ||
	    st.ppid == (int)getpid())
		return;
	snprintf(name, sizeof(name), "/proc/%u/exe", ev->pid);
	ssize_t n = readlink(name, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	unsigned long long late_us = (dt_now_ns() - ev->ktime) / 1000;
	if (dt_procfs_foreign((pid_t)ev->pid, NULL) > 0)
		dt_warn(NULL, "pid %u (%s) runs in another mount namespace, "
			"out of the exec gate's reach: its probes were placed "
			"%llu us after its exec; what it fired before was not "
			"seen", ev->pid, n > 0 ? exe : "?", late_us);
	else
		dt_warn(NULL, "pid %u (%s) was not held by the exec gate (its "
			"filesystem was mounted after tracing began, or dtrace "
			"could not answer): its probes were placed %llu us "
			"after its exec; what it fired before was not seen",
			ev->pid, n > 0 ? exe : "?", late_us);
}

/* What pid's exec retires: if the gate served it just now (taken off the
 * list), what was recorded before the new image's generation, else
 * everything. */
static uint32_t exec_retires_before(struct dt_exec *ex, pid_t pid)
{
	uint64_t now = dt_now_ns();

	for (int i = 0; i < SERVED_MAX; i++) {
		exec_served_t *s = &ex->served[i];

		if (s->pid != pid || now - s->when > SERVED_FRESH_NS)
			continue;
		s->pid = 0;
		return s->image;
	}
	return UINT32_MAX;
}

/* Hand one event to every watcher, after maps_changed for a library
 * change. */
static int exec_dispatch(dtrace_hdl_t *dtp, struct dt_exec *ex,
			 const exec_event_t *ev, dt_exec_maps_f maps_changed)
{
	int placed = 0;
	uint64_t woke = dt_now_ns() - ev->ktime;
	exec_notice_t n = { .pid = (pid_t)ev->pid, .what = (int)ev->what };

	if (ev->what == DTRACE_NOTICE_MAPS && maps_changed != NULL)
		maps_changed(dtp, (pid_t)ev->pid);
	/* The probes of the old image go before anyone hears of the new. */
	if (ev->what == DTRACE_NOTICE_EXEC)
		dt_prog_retire_pid(dtp, (pid_t)ev->pid,
				   exec_retires_before(ex, (pid_t)ev->pid));
	for (int i = 0; i < ex->nwatchers; i++) {
		int rc = notify(dtp, ex->watchers[i], &n);
		if (rc < 0)
			return -1;
		placed += rc;
	}
	ex->nevents++;
	if (getenv("DTRACE_EXEC_DEBUG") != NULL)
		fprintf(stderr, "dtrace: exec watch: pid %u %s at %" PRIu64
			" ns, seen %" PRIu64 " us later: %d placed\n", ev->pid,
			ev->what == DTRACE_NOTICE_EXEC ? "exec" : "maps",
			ev->ktime, woke / 1000, placed);
	if (placed > 0) {
		uint64_t lat = dt_now_ns() - ev->ktime;

		exec_report_ungated(ex, ev);

		ex->nplaced++;
		ex->lat_sum_ns += lat;
		ex->wake_sum_ns += woke;
		if (lat > ex->lat_max_ns)
			ex->lat_max_ns = lat;
	}
	return 0;
}

int dt_exec_event_fd(const dtrace_hdl_t *dtp)
{
	const struct dt_exec *ex = dtp->exec;

	return ex != NULL && ex->rb != NULL ? ex->ring->fd : -1;
}

int dt_exec_gate_fd(const dtrace_hdl_t *dtp)
{
	const struct dt_exec *ex = dtp->exec;

	return ex != NULL && ex->gate != NULL ? dt_gate_fd(ex->gate) : -1;
}

int dt_exec_gate_serve(dtrace_hdl_t *dtp)
{
	struct dt_exec *ex = dtp->exec;

	if (ex == NULL || ex->gate == NULL)
		return 0;
	return dt_gate_serve(ex->gate, dtp, gate_serve) < 0 ? -1 : 0;
}

int dt_exec_poll(dtrace_hdl_t *dtp, dt_exec_maps_f maps_changed)
{
	struct dt_exec *ex = dtp->exec;

	if (ex == NULL || ex->rb == NULL)
		return 0;
	ex->nbatch = 0;
	int n = ring_buffer__consume(ex->rb);
	if (n < 0) {
		dt_set_error(dtp, "failed to read the exec watch's buffer: %s",
			     strerror(-n));
		return -1;
	}
	for (int i = 0; i < ex->nbatch; i++)
		if (exec_dispatch(dtp, ex, &ex->batch[i], maps_changed) < 0)
			return -1;
	ex->nbatch = 0;
	return 0;
}

void dt_exec_fini(dtrace_hdl_t *dtp)
{
	struct dt_exec *ex = dtp->exec;

	if (ex == NULL)
		return;
	if (getenv("DTRACE_EXEC_STATS") != NULL)
		fprintf(stderr, "dtrace: exec watch: %" PRIu64 " events, %"
			PRIu64 " placed probes, latency avg %" PRIu64
			" us max %" PRIu64 " us (of which waking up: avg %"
			PRIu64 " us)\n", ex->nevents, ex->nplaced,
			ex->nplaced ? ex->lat_sum_ns / ex->nplaced / 1000 : 0,
			ex->lat_max_ns / 1000,
			ex->nplaced ? ex->wake_sum_ns / ex->nplaced / 1000 : 0);
	exec_close(ex);
	dtp->exec = NULL;
}
