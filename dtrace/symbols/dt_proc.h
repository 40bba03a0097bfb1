/* SPDX-License-Identifier: MIT */
/*
 * dt_proc.h: the processes a session targets (-c and -p).
 *
 * -c CMD: dt_proc_create() starts CMD under ptrace, stopped where -x
 * evaltime says (by default when the dynamic linker has mapped its
 * libraries, before their initializers and the program's own code run), so
 * that probes can be attached before it runs; dt_proc_release() lets it
 * go.  -p PID: dt_proc_grab() only checks that
 * the process exists; it is never stopped.
 *
 * Exit tracking.  Each target has a pidfd (pidfd_open); all of them are in
 * one epoll set whose descriptor dt_proc_fd() returns: it becomes readable
 * when any target exits.  The consumer loop polls it next to the ring
 * buffer and then calls dt_proc_check() until it returns 0, printing each
 * message it returns ("pid 123 has exited", as DTrace says it, without the
 * "dtrace: " prefix); dt_proc_done() says when no target is left, which
 * ends a -c session.
 *
 * Teardown.  dt_proc_fini() kills a -c child that is still stopped (tracing
 * failed before it was released) or still running (dtrace ends before its
 * command, as DTrace does), and reaps it: nothing is left behind.  A -c
 * child is also traced with PTRACE_O_EXITKILL while stopped, so a dtrace
 * killed with SIGKILL before release takes the child with it.
 */
#ifndef DT_PROC_H
#define DT_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "dt_impl.h"

typedef struct dt_proc {
	pid_t pid;
	int pidfd;		/* -1 when pidfd_open is not available */
	bool created;		/* by -c: our child */
	bool stopped;		/* under ptrace, stopped (-x evaltime) */
	bool at_exec;		/* stopped right after its exec, before its
				   libraries (-x evaltime=exec) */
	bool exited;		/* exit seen (the process is reaped) */
	bool reported;		/* and returned by dt_proc_check() */
	int status;		/* wait status of a created child */
} dt_proc_t;

struct dt_proc_state {
	dt_proc_t *procs;
	int nprocs;
	int epfd;		/* epoll set of every target's pidfd */
};

/* -c: start cmd (split on white space; '...', "..." and \ quote) stopped
 * where -x evaltime says.  Sets *pidp and, if unset, dtp->target.  Returns 0, or
 * -1 after dt_set_error() ("failed to execute CMD: REASON"). */
int dt_proc_create(dtrace_hdl_t *dtp, const char *cmd, pid_t *pidp);

/* -p: a running process.  Sets dtp->target if unset.  Returns 0, or -1
 * after dt_set_error() ("failed to grab pid N: No such process"). */
int dt_proc_grab(dtrace_hdl_t *dtp, pid_t pid);

/* -x evaltime=exec: run every -c child stopped after its exec until its
 * loader has mapped its initial libraries, before their initializers; it
 * stays stopped there, for the probes of those libraries to be placed.
 * Returns 1 when a child ran so, 0 when none had libraries to load, -1
 * after dt_set_error(). */
int dt_proc_load_libraries(dtrace_hdl_t *dtp);

/* Let every stopped -c child run (after the probes are attached). */
int dt_proc_release(dtrace_hdl_t *dtp);

/* A descriptor readable when a target exits, or -1 without targets. */
int dt_proc_fd(dtrace_hdl_t *dtp);

/* Report one target exit not yet reported: fills msg ("pid N has exited",
 * "pid N exited with status S", "pid N terminated by SIGNAME") and returns
 * 1; returns 0 when there is nothing new.  Never blocks. */
int dt_proc_check(dtrace_hdl_t *dtp, char *msg, size_t msglen);

/* Every target has exited (false when there were none).  Notices exits
 * itself, so it may be called without dt_proc_check(); the exits stay
 * unreported until dt_proc_check() returns them. */
bool dt_proc_done(dtrace_hdl_t *dtp);

/* Exit status of the -c child (as exit() would give it: 128 + signal when
 * killed), or -1 if there is none or it has not exited. */
int dt_proc_exit_status(dtrace_hdl_t *dtp);

/* Number of targets, and the pid of target i (-c and -p in order). */
int dt_proc_count(dtrace_hdl_t *dtp);
pid_t dt_proc_pid(dtrace_hdl_t *dtp, int i);

void dt_proc_fini(dtrace_hdl_t *dtp);

/* Split cmd into a NULL-terminated argv as dt_proc_create() does (exposed
 * for tests).  Returns NULL on an unterminated quote or an empty command;
 * free with dt_proc_argv_free(). */
char **dt_proc_split(const char *cmd);
void dt_proc_argv_free(char **argv);

#endif /* DT_PROC_H */
