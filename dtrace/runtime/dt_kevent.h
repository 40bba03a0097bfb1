/* SPDX-License-Identifier: MIT */
/*
 * dt_kevent.h: kernel events other than tracepoints and perf samples:
 * kprobes, kretprobes, fentry, fexit and raw tracepoints (host->sites->event()).
 */
#ifndef DT_KEVENT_H
#define DT_KEVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "dt_impl.h"
#include "dt_as.h"

/* Whether host->sites->event() places events of type t through this file. */
bool dt_kevent_offered(dtrace_event_type_t t);
/* Whether a program of type t (0: a uprobe or perf sample) gets a pt_regs
 * as its context. */
bool dt_kevent_has_regs(dtrace_event_type_t t);
/* Whether each event of type t needs a program of its own (loaded for
 * one function or tracepoint, with its cookie built in: these have no
 * attach cookie on the kernels this dtrace supports). */
bool dt_kevent_per_probe(dtrace_event_type_t t);
/* Load the program of an event of type t on name (a kernel function or
 * raw tracepoint): its fd, or -1 after dt_set_error(). */
int dt_kevent_load(dtrace_hdl_t *dtp, const char *progname, dt_as_t *as,
		   dtrace_event_type_t t, const char *name);
/* Attach prog_fd to the event of type t on name, with cookie.  0, or a
 * negative errno after dt_set_error(). */
int dt_kevent_attach(dtrace_hdl_t *dtp, int prog_fd, dtrace_event_type_t t,
		     const char *name, uint64_t cookie);

#endif /* DT_KEVENT_H */
