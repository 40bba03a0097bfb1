/* SPDX-License-Identifier: MIT */
/*
 * dt_exec.h: the exec watch.  Tells providers that asked (host->sites->watch_exec)
 * about processes that exec and about libraries the dynamic loader maps or
 * unmaps, while tracing, without polling the machine's processes.
 */
#ifndef DT_EXEC_H
#define DT_EXEC_H

#include <sys/types.h>

typedef struct dtrace_hdl dtrace_hdl_t;
typedef struct dtrace_provider dt_provider_t;

/* Turn the watch on for provider pv (host->sites->watch_exec; NULL: for
 * the engine itself, which symbolizes the libraries processes load).
 * Asked before tracing starts (from provide() or enable()), it takes
 * effect in dt_exec_start(); afterwards, at once.  0, or a negative errno
 * after dt_set_error(). */
int dt_exec_watch(dtrace_hdl_t *dtp, dt_provider_t *pv);

/* Also hold execs for pv through the exec gate (dt_gate.h):
 * host->sites->gate_exec.  Turns the watch on, likewise.  A gate the
 * kernel refuses is a warning, not an error. */
int dt_exec_gate(dtrace_hdl_t *dtp, dt_provider_t *pv);

/* Tracing starts, before BEGIN fires: set up what was asked so far, so
 * that what a BEGIN clause prints ("ready") means that programs started
 * from then on are covered.  0 or -1 after dt_set_error(). */
int dt_exec_start(dtrace_hdl_t *dtp);

/* Tracing stops (before END): the gate lets execs go, since the session's
 * loop no longer serves it.  The exec watch stays until dt_exec_fini(). */
void dt_exec_stop(dtrace_hdl_t *dtp);

/*
 * The session's event loop (cmd/dt_session.c) polls the watch's
 * descriptors with the others and calls the watch when they are ready.
 */

/* The exec watch's ring buffer: readable when an event came; -1 when no
 * watch runs. */
int dt_exec_event_fd(const dtrace_hdl_t *dtp);

/* The exec gate's descriptor: readable when an exec waits; -1 when no
 * gate is open. */
int dt_exec_gate_fd(const dtrace_hdl_t *dtp);

/* Hand the exec the gate holds (if any) to the gated providers: called
 * first when the gate's descriptor is readable, since a process waits.
 * 0 or -1 after dt_set_error(). */
int dt_exec_gate_serve(dtrace_hdl_t *dtp);

/* Told first of each process whose loader mapped or unmapped libraries
 * (the consumer, which symbolizes its addresses). */
typedef void (*dt_exec_maps_f)(dtrace_hdl_t *dtp, pid_t pid);

/* Read the events that came and hand each to the watching providers,
 * after maps_changed (may be NULL) for a library change.  0 or -1 after
 * dt_set_error(). */
int dt_exec_poll(dtrace_hdl_t *dtp, dt_exec_maps_f maps_changed);

/* Events seen and the sum of their latencies (kernel event to the
 * provider's notice_process() return), for tests and benchmarks: printed
 * to stderr at the end when DTRACE_EXEC_STATS is set. */
void dt_exec_fini(dtrace_hdl_t *dtp);

#endif /* DT_EXEC_H */
