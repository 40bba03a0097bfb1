/* SPDX-License-Identifier: MIT */
/*
 * dt_sigwatch.h: the signal watch, which says when the kernel signals a
 * traced process because one of its uprobes could not be handled.
 *
 * The program builder tells which processes the session's uprobes are in
 * (dt_sigwatch_cover(), pid 0 for every process); the session's loop
 * starts the watch and polls it (dt_sigwatch_poll()), which warns on stderr, with or
 * without -q: "dtrace: pid N (COMM) was killed by SIGILL: ...".
 */
#ifndef DT_SIGWATCH_H
#define DT_SIGWATCH_H

#include <sys/types.h>

#include "dt_impl.h"

/* Some uprobe of the session is in process pid (0: every process). */
void dt_sigwatch_cover(dtrace_hdl_t *dtp, pid_t pid);

/* Start watching if a uprobe was placed and the watch is not on yet:
 * called before a -c command runs, and again by dt_sigwatch_poll() for
 * uprobes placed while tracing.  A kernel or tracefs that does not offer
 * the tracepoint gets one warning, never an error: tracing goes on. */
void dt_sigwatch_start(dtrace_hdl_t *dtp);

/* Warn of each covered process the kernel signalled since the last poll. */
void dt_sigwatch_poll(dtrace_hdl_t *dtp);

/* The watch's perf events (one per CPU, -1 for a CPU not watched), which
 * a sample makes readable, in *fds: how many, 0 while it is not started.
 * The session's loop sleeps on them. */
int dt_sigwatch_fds(const dtrace_hdl_t *dtp, const int **fds);

void dt_sigwatch_fini(dtrace_hdl_t *dtp);

#endif /* DT_SIGWATCH_H */
