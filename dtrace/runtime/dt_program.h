/* SPDX-License-Identifier: MIT */
/*
 * dt_program.h: underlying probes, overlays, and the BPF programs that run
 * the clauses when an underlying probe fires.
 *
 * One program per (provider, kind), or per set of them at a site that
 * several providers share, attached to every underlying probe of that kind:
 * prologue, the provider's trampoline, the overlay lookup, then a call of
 * each clause enabled on each overlying probe that applies.  Layout and
 * maps: dt_runtime.h.
 */
#ifndef DT_PROGRAM_H
#define DT_PROGRAM_H

#include "dt_impl.h"

/* host->sites->uprobe(): returns the cookie or -errno. */
int64_t dt_prog_uprobe(dtrace_hdl_t *dtp, dt_provider_t *pv,
		       const dtrace_uprobe_t *up);
/* host->sites->perf(). */
/* host->sites->event() for kernel events (kprobes, fentry, raw tracepoints). */
int64_t dt_prog_kernel_event(dtrace_hdl_t *dtp, dt_provider_t *pv,
			     const dtrace_event_t *ev);
int64_t dt_prog_perf_probe(dtrace_hdl_t *dtp, dt_provider_t *pv,
			   const dtrace_perfprobe_t *pp);
/* host->sites->fire(): run a soft probe's program now. */
int dt_prog_fire(dtrace_hdl_t *dtp, int64_t cookie);
/* While tracing: pv's provide() again for every description of the
 * program, and enable() of the probes that creates that clauses match
 * (host->probes->provide_again).  The count enabled, or -1 after dt_set_error(). */
int dt_prog_provide_again(dtrace_hdl_t *dtp, dt_provider_t *pv);
/* host->sites->overlay(). */
int dt_prog_overlay(dtrace_hdl_t *dtp, int64_t cookie, pid_t pid,
		    dtrace_probe_t *prp);
/*
 * While tracing: process pid exec'ed.  What every provider recorded for
 * pid before generation before (UINT32_MAX: everything), which named the
 * probes of its old image, is taken out, as DTrace removes a process's
 * probes with the image they were made for: its overlays, and its sites
 * of its own, which are unlinked.  Firings in the new image find the
 * overlays of every process alone, until providers overlay probes of the
 * new image.  0 or -errno of a failed map update (warned).
 */
int dt_prog_retire_pid(dtrace_hdl_t *dtp, pid_t pid, uint32_t before);
/*
 * Generations.  The exec gate has the providers record a new image's
 * probes before the exec completes (and before its event); the old
 * image's go at the event, if it comes: an exec that fails leaves the
 * process its old image, and its probes.  So what is recorded for a
 * process (overlays, sites of its own) is stamped with the generation in
 * force, and asked for again restamps it; the gate begins a new one
 * before it serves an exec, and the exec's event retires what is older.
 * Returns the new generation.
 */
uint32_t dt_prog_image_next(dtrace_hdl_t *dtp);
/*
 * While tracing, at most once every DT_SWEEP_NS, from the session's loop
 * after it read the buffers: the processes that exited since.  Each
 * process with overlays or probes of its own (host->probes->of_process())
 * is asked after (kill(pid, 0)); one found gone is retired at the next
 * sweep, once the records it wrote before it exited have been read, so
 * that none names a probe removed: its overlays leave the kernel's map
 * and their slots are given to processes to come, and its own probes are
 * removed.  Without it a session that traces every process of a busy
 * machine keeps every process it ever saw, about 1.5 kB each.  A pid that
 * a new process took meanwhile is alive, and stays.
 */
#define DT_SWEEP_NS	(1000 * 1000 * 1000ull)
void dt_prog_sweep_gone(dtrace_hdl_t *dtp);

/* Create the session maps every program uses (before compiling clauses). */
int dt_prog_maps_declare(dtrace_hdl_t *dtp);
/* Enable every probe some clause is enabled on, build and load the
 * programs, create the maps and attach.  Returns 0 or -1 (error set). */
int dt_prog_build_all(dtrace_hdl_t *dtp);
/* Let the providers start (BEGIN fires) and stop (END fires). */
int dt_prog_start(dtrace_hdl_t *dtp);
int dt_prog_stop(dtrace_hdl_t *dtp);
/* Activity of the session as the BPF side sees it (dt_activity_t). */
int dt_prog_activity(dtrace_hdl_t *dtp);
/* Let the providers that watch for new processes and files act. */
int dt_prog_poll_providers(dtrace_hdl_t *dtp);

/* While tracing, an underlying probe placed with host->sites->uprobe() is attached
 * at once.  Registering a uprobe_multi link costs the kernel an RCU grace
 * period (about 15 ms on the development machines) whatever its size, so
 * the engine brackets each provider call that may place several (poll(),
 * notice_process(), notice_files()) with these: probes placed in between
 * are attached at the end, one link per (program, file, pid, return flag).
 * A site the kernel refuses then gets a warning instead of an error return
 * from host->sites->uprobe().  Not nested; no-ops before tracing. */
void dt_prog_batch_begin(dtrace_hdl_t *dtp);
void dt_prog_batch_end(dtrace_hdl_t *dtp);
void dt_prog_fini(dtrace_hdl_t *dtp);

#endif /* DT_PROGRAM_H */
