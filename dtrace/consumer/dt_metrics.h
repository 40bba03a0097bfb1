/* SPDX-License-Identifier: MIT */
/*
 * dt_metrics.h: -x metrics, the aggregations served to Prometheus while
 * tracing (dt_metrics.c).
 */
#ifndef DT_METRICS_H
#define DT_METRICS_H

typedef struct dtrace_hdl dtrace_hdl_t;

/* Bind [ADDR:]PORT (loopback when no ADDR) and start serving /metrics:
 * 0, or -1 after dt_set_error() (an address in use, not an address). */
int dt_metrics_start(dtrace_hdl_t *dtp, const char *spec);
/* Readable when a scrape waits for a snapshot; -1 without -x metrics. */
int dt_metrics_fd(const dtrace_hdl_t *dtp);
/* The session's loop, when that descriptor is readable: the snapshot
 * every waiting scrape is answered with.  0. */
int dt_metrics_serve(dtrace_hdl_t *dtp);
/* Stop serving: scrapes from now on are not answered. */
void dt_metrics_stop(dtrace_hdl_t *dtp);

#endif /* DT_METRICS_H */
