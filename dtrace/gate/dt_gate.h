/* SPDX-License-Identifier: MIT */
/*
 * dt_gate.h: the exec gate.  While a session traces "provider*" USDT
 * descriptions, each exec on the machine is held, before the new program
 * runs, until the watching providers have seen the files it maps at start
 * and placed their uprobes on them (see dt_gate.c).
 */
#ifndef DT_GATE_H
#define DT_GATE_H

#include <stdint.h>

typedef struct dtrace_hdl dtrace_hdl_t;
typedef struct dt_gate dt_gate_t;

/* What the gate asks of the trace loop: the files one exec maps at start,
 * of which at least one carries USDT notes.  Called in the trace loop's
 * thread; returns how many probes were placed, or -1 after dt_set_error()
 * (tracing then stops; the exec is let through all the same). */
typedef int (*dt_gate_serve_f)(dtrace_hdl_t *dtp, int pid,
			       const char *const *paths, int npaths);

/* Open the gate: a fanotify group marking every filesystem mounted here
 * for FAN_OPEN_EXEC_PERM, answered by a watchdog process (dt_gatewd.c)
 * that asks a thread of dtrace's.  Only execs that map a file with one of
 * the ELF sections named in sections (NULL-ended, copied) not shown before
 * are held.  NULL with a message in msg when the kernel or the privileges
 * do not allow it. */
dt_gate_t *dt_gate_open(const char *const *sections, char *msg,
			size_t msglen);

/* From now on, write value under the pid of every exec the gate covered
 * (every file it maps at start seen by the providers) into the BPF hash
 * map_fd (u32 -> u32), before letting it go; map_fd -1: stop.  Only
 * programs the dynamic loader starts are marked. */
void dt_gate_arm(dt_gate_t *g, int map_fd, int value);

/* The descriptor the trace loop polls: readable when an exec waits. */
int dt_gate_fd(const dt_gate_t *g);

/* In the trace loop: hand the waiting exec (if any) to serve; when it
 * placed probes for a program already running (the watchdog let it go),
 * say so by name.  0 or -1. */
int dt_gate_serve(dt_gate_t *g, dtrace_hdl_t *dtp, dt_gate_serve_f serve);

/* Let every held exec go, stop the thread, free everything.  Prints the
 * gate's statistics to stderr when stats is set. */
void dt_gate_close(dt_gate_t *g, int stats);

#endif /* DT_GATE_H */
