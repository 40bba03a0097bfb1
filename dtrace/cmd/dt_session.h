/* SPDX-License-Identifier: MIT */
/*
 * dt_session.h: the session's event loop, which runs while tracing: it
 * sleeps on every descriptor that says something happened (the output
 * ring buffer, the exec watch and gate, the providers' events, the signal
 * watch) and calls the part of the engine each belongs to.
 */
#ifndef DT_SESSION_H
#define DT_SESSION_H

#include <stdbool.h>

#include "dt_impl.h"

/* SIGINT, SIGTERM and SIGHUP end the loop (END then fires); SIGPIPE is
 * ignored, a write to a closed pipe being an output error. */
void dt_session_signals(void);

/* Trace until the program exits, a signal, the -c and -p processes are
 * gone (have_procs), or a buffer policy ends it.  outpath names -o's file
 * in a write error.  0 or -1 after dt_set_error(). */
int dt_session_loop(dtrace_hdl_t *dtp, const char *outpath, bool have_procs);

/* Flush the output; a write that failed (a full disk, /dev/full) is an
 * error that names the file (outpath, or standard output for NULL), so
 * that the exit status says data was lost.  0 or -1. */
int dt_session_flush(dtrace_hdl_t *dtp, const char *outpath);

/* "dtrace: pid N has exited" for each target that went away; with -q
 * too, each process the kernel killed for a uprobe it could not handle
 * (dt_sigwatch.c). */
void dt_session_report_exits(dtrace_hdl_t *dtp);

/* Start-up progress: what start-up does now (a string that lives as long
 * as the program: "matching probe descriptions"), or NULL between steps.
 * On a terminal (stderr), a step still running after a second is told
 * once, "dtrace: STEP...", as teardown tells its detaching; elsewhere
 * nothing is printed and nothing is started. */
void dt_session_step(const char *step);

/* The end of start-up (or of the command): no step is told afterwards. */
void dt_session_steps_end(void);

#endif /* DT_SESSION_H */
