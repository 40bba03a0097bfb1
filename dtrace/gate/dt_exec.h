/* SPDX-License-Identifier: MIT */
/*
 * dt_exec.h: the exec watch.  Tells providers that asked (host->watch_exec)
 * about processes that exec and about libraries the dynamic loader maps or
 * unmaps, while tracing, without polling the machine's processes.
 */
#ifndef DT_EXEC_H
#define DT_EXEC_H

#include <sys/types.h>

typedef struct dtrace_hdl dtrace_hdl_t;

/* Turn the watch on for the provider whose operation is running
 * (dtp->cur_provider): host->watch_exec.  Asked before tracing starts (from
 * provide() or enable()), it takes effect in dt_exec_start(); afterwards, at
 * once.  0, or a negative errno after dt_set_error(). */
int dt_exec_watch(dtrace_hdl_t *dtp);

/* Also hold execs for that provider through the exec gate (dt_gate.h):
 * host->gate_exec.  Turns the watch on, likewise.  A gate the kernel
 * refuses is a warning, not an error. */
int dt_exec_gate(dtrace_hdl_t *dtp);

/* Tracing starts, before BEGIN fires: set up what was asked so far, so
 * that what a BEGIN clause prints ("ready") means that programs started
 * from then on are covered.  0 or -1 after dt_set_error(). */
int dt_exec_start(dtrace_hdl_t *dtp);

/* Tracing stops (before END): the gate lets execs go, since the trace loop
 * no longer serves it.  The exec watch stays until dt_exec_fini(). */
void dt_exec_stop(dtrace_hdl_t *dtp);

/* The trace loop's wait: up to timeout_ms for output or an exec event,
 * then consume the output and hand the events to the providers.  Without
 * a watch, this is dt_consume_poll(dtp, timeout_ms).  0 or -1 after
 * dt_set_error(). */
int dt_exec_consume_poll(dtrace_hdl_t *dtp, int timeout_ms);

/* Events seen and the sum of their latencies (kernel event to the
 * provider's notice_process() return), for tests and benchmarks: printed
 * to stderr at the end when DTRACE_EXEC_STATS is set. */
void dt_exec_fini(dtrace_hdl_t *dtp);

#endif /* DT_EXEC_H */
