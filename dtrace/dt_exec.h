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
 * (dtp->cur_provider): host->watch_exec.  0, or a negative errno after
 * dt_set_error(). */
int dt_exec_watch(dtrace_hdl_t *dtp);

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
