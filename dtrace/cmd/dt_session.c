/* SPDX-License-Identifier: MIT */
/*
 * dt_session.c: the session's event loop.  While tracing, dtrace sleeps
 * in one poll() on every descriptor that says something happened, and
 * when it wakes, it calls the part of the engine each belongs to:
 *
 *   source		descriptor		called
 *   exec gate		its request pipe	dt_exec_gate_serve(), first
 *			(gate/dt_gate.c)	and only when readable: an
 *						exec waits for it
 *   output		the "output" ring	dt_consume_poll(), every
 *			buffer			wakeup
 *   exec watch		its ring buffer		dt_exec_poll(), every wakeup;
 *			(gate/dt_exec.c)	a library change is told to
 *						the consumer first
 *   providers		their event_fd()	dt_prog_poll_providers(),
 *						every wakeup
 *   signal watch	its perf events		dt_sigwatch_poll(), with the
 *			(runtime/)		targets' exits, every wakeup
 *   metrics		an eventfd, when a	dt_metrics_serve(), when
 *			scrape waits		readable: the snapshot
 *			(consumer/)
 *
 * After the sources, each turn lets the program builder retire the
 * processes that exited (dt_prog_sweep_gone(), once a second at most).
 *
 * Kernel events (runtime/dt_kevent.c) have no descriptor of their own:
 * their programs write to the output ring buffer.  The sleep lasts one
 * poll period at most (the switch rate, capped at 100 ms), so that what
 * comes without a wakeup (records that need no prompt action, a target's
 * exit) is seen within one period; the descriptors only make it end
 * sooner.
 *
 * The sources are wired here, at the top: the exec watch does not know
 * the consumer, nor the consumer the exec watch.  The descriptors are
 * asked for at every wakeup, since a source may start while tracing (a
 * provider that asks for the exec watch, the signal watch once a uprobe
 * is placed).
 *
 * Start-up progress.  Before the loop, start-up's steps may be slow on a
 * large machine or a large script (matching descriptions against every
 * process's files, reading BTF, attaching thousands of probes); on a
 * terminal a step still running after a second says so on one line, as
 * teardown's detaching does.  A thread waits out each step's second: the
 * step that is slow cannot be interrupted to print.  It prints with
 * write(2) alone, so that a -c command forked meanwhile inherits no stdio
 * lock held.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_bpf.h"
#include "dt_consume.h"
#include "dt_exec.h"
#include "dt_metrics.h"
#include "dt_proc.h"
#include "dt_program.h"
#include "dt_runtime.h"
#include "dt_session.h"
#include "dt_sigwatch.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted++;
}

void dt_session_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The descriptors of one wait, each source's a run of them. */
typedef struct pollset {
	struct pollfd *fds;
	int n, cap;
} pollset_t;

static void pollset_add(pollset_t *ps, int fd)
{
	if (fd < 0)
		return;
	dt_array_room(ps->fds, ps->n, ps->cap);
	ps->fds[ps->n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
}

static void add_gate(dtrace_hdl_t *dtp, pollset_t *ps)
{
	pollset_add(ps, dt_exec_gate_fd(dtp));
}

static void add_output(dtrace_hdl_t *dtp, pollset_t *ps)
{
	dtrace_map_t *out = dt_bpf_map_find(dtp, "output");

	pollset_add(ps, out != NULL ? out->fd : -1);
}

static void add_exec_watch(dtrace_hdl_t *dtp, pollset_t *ps)
{
	pollset_add(ps, dt_exec_event_fd(dtp));
}

static void add_providers(dtrace_hdl_t *dtp, pollset_t *ps)
{
	for (dt_provider_t *pv = dtp->providers; pv; pv = pv->next)
		if (pv->ops->event_fd != NULL && pv->ops->poll != NULL)
			pollset_add(ps, pv->ops->event_fd(pv, pv->data));
}

static void add_metrics(dtrace_hdl_t *dtp, pollset_t *ps)
{
	pollset_add(ps, dt_metrics_fd(dtp));
}

static void add_sigwatch(dtrace_hdl_t *dtp, pollset_t *ps)
{
	const int *fds;
	int n = dt_sigwatch_fds(dtp, &fds);

	for (int i = 0; i < n; i++)
		pollset_add(ps, fds[i]);
}

static int run_output(dtrace_hdl_t *dtp)
{
	return dt_consume_poll(dtp, 0);
}

static int run_exec_watch(dtrace_hdl_t *dtp)
{
	return dt_exec_poll(dtp, dt_consume_maps_changed);
}

/*
 * The sources in the order they are called after a wait.  run NULL: the
 * source's descriptors only wake the loop, whose tail calls it every
 * period (after it checked whether the program ended).
 */
static const struct source {
	void (*add)(dtrace_hdl_t *dtp, pollset_t *ps);
	int (*run)(dtrace_hdl_t *dtp);	/* 0 or -1 after dt_set_error() */
	bool when_ready;		/* only when a descriptor is */
} sources[] = {
	{ add_gate, dt_exec_gate_serve, true },
	{ add_output, run_output, false },
	{ add_exec_watch, run_exec_watch, false },
	{ add_providers, NULL, false },
	{ add_sigwatch, NULL, false },
	{ add_metrics, dt_metrics_serve, true },
};
#define NSOURCES	(sizeof(sources) / sizeof(sources[0]))

/* Whether one of the descriptors [from, to) of ps is readable. */
static bool ready_in(const pollset_t *ps, int from, int to)
{
	for (int i = from; i < to; i++)
		if (ps->fds[i].revents != 0)
			return true;
	return false;
}

/* Sleep up to timeout_ms on every source's descriptors, then call the
 * sources.  0 or -1 after dt_set_error(). */
static int wait_and_dispatch(dtrace_hdl_t *dtp, pollset_t *ps,
			     int timeout_ms)
{
	int first[NSOURCES + 1];

	ps->n = 0;
	for (size_t i = 0; i < NSOURCES; i++) {
		first[i] = ps->n;
		sources[i].add(dtp, ps);
	}
	first[NSOURCES] = ps->n;
	if (poll(ps->fds, (nfds_t)ps->n, timeout_ms) < 0 && errno != EINTR) {
		dt_set_error(dtp, "poll: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < NSOURCES; i++) {
		const struct source *src = &sources[i];

		if (src->run == NULL || (src->when_ready &&
		    !ready_in(ps, first[i], first[i + 1])))
			continue;
		if (src->run(dtp) < 0)
			return -1;
	}
	return 0;
}

/* The poll period: the switch rate, capped so that signals and process
 * exits are seen promptly. */
static int poll_period_ms(dtrace_hdl_t *dtp)
{
	uint64_t ms = dtp->opt.switchrate / 1000000;

	if (ms > 100)
		ms = 100;
	return ms ? (int)ms : 1;
}

void dt_session_report_exits(dtrace_hdl_t *dtp)
{
	char msg[256];

	dt_sigwatch_poll(dtp);
	while (dt_proc_check(dtp, msg, sizeof(msg)) > 0)
		if (!dtp->opt.quiet)
			dt_warn(dtp, "%s", msg);
}

int dt_session_flush(dtrace_hdl_t *dtp, const char *outpath)
{
	if (fflush(dtp->out) == 0 && !ferror(dtp->out))
		return 0;
	int err = dtp->out_errno ? dtp->out_errno : EIO;
	if (outpath != NULL)
		dt_set_error(dtp, "failed to write output file '%s': %s",
			     outpath, strerror(err));
	else
		dt_set_error(dtp, "failed to write standard output: %s",
			     strerror(err));
	return -1;
}

/* How long the loop waits, once a clause called exit(), for that
 * clause's record: the clause marks the session draining before it writes
 * its record, and a firing preempted between the two (a busy machine)
 * would otherwise end the session with its record unread.  A record that
 * never comes (dropped, counted) ends the wait. */
#define EXIT_RECORD_WAIT_NS	(1000 * 1000 * 1000ull)

/* Whether a clause's exit() ends tracing now: its record was read
 * (dt_consume_done(), before this), or it was not within
 * EXIT_RECORD_WAIT_NS of the session's draining (*exit_seen_ns: when the
 * loop first saw it, 0 before). */
static bool exit_ends(dtrace_hdl_t *dtp, uint64_t *exit_seen_ns)
{
	if (dt_prog_activity(dtp) < DT_ACTIVITY_DRAINING)
		return false;
	if (*exit_seen_ns == 0)
		*exit_seen_ns = dt_now_ns();
	return dt_now_ns() - *exit_seen_ns >= EXIT_RECORD_WAIT_NS;
}

/* One turn of the loop: 1 to go on, 0 when tracing is over, -1. */
static int loop_turn(dtrace_hdl_t *dtp, pollset_t *ps, const char *outpath,
		     bool have_procs, uint64_t *exit_seen_ns)
{
	if (wait_and_dispatch(dtp, ps, poll_period_ms(dtp)) < 0 ||
	    dt_session_flush(dtp, outpath) < 0)
		return -1;
	dt_consume_report_drops(dtp);
	if (dt_consume_done(dtp))
		return 0;
	if (dt_prog_poll_providers(dtp) < 0)
		return -1;
	dt_prog_sweep_gone(dtp);	/* after the buffers were read */
	dt_session_report_exits(dtp);
	if (have_procs && dt_proc_done(dtp))
		return 0;
	return !exit_ends(dtp, exit_seen_ns);
}

int dt_session_loop(dtrace_hdl_t *dtp, const char *outpath, bool have_procs)
{
	pollset_t ps = { 0 };
	uint64_t exit_seen_ns = 0;
	int rc = 1;

	while (!interrupted && rc > 0)
		rc = loop_turn(dtp, &ps, outpath, have_procs, &exit_seen_ns);
	free(ps.fds);
	return rc < 0 ? -1 : 0;
}

#define DT_STEP_TELL_S	1	/* a step is told after this many seconds */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;	/* step or done changed */
	pthread_t thread;
	bool started, done;
	const char *step;	/* the step now, NULL between steps */
	unsigned gen;		/* counts steps: each waits its own second */
} progress = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void step_tell(const char *step)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "dtrace: %s...\n", step);

	if (n > 0 && write(STDERR_FILENO, line,
			   (size_t)n < sizeof(line) ? (size_t)n :
			   sizeof(line) - 1) < 0)
		return;		/* nothing to do about a terminal gone */
}

/* Waits for the step of generation gen to change, at most until
 * deadline (NULL: no limit); true if it changed.  Under the lock. */
static bool step_changed(unsigned gen, const struct timespec *deadline)
{
	while (!progress.done && progress.gen == gen) {
		int rc = deadline == NULL ?
			pthread_cond_wait(&progress.changed, &progress.lock) :
			pthread_cond_timedwait(&progress.changed,
					       &progress.lock, deadline);
		if (rc == ETIMEDOUT)
			return false;
	}
	return true;
}

static void *step_watch(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&progress.lock);
	while (!progress.done) {
		unsigned gen = progress.gen;
		struct timespec deadline;

		if (progress.step == NULL) {
			step_changed(gen, NULL);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += DT_STEP_TELL_S;
		if (step_changed(gen, &deadline))
			continue;
		step_tell(progress.step);	/* once per step */
		step_changed(gen, NULL);
	}
	pthread_mutex_unlock(&progress.lock);
	return NULL;
}

void dt_session_step(const char *step)
{
	if (!isatty(STDERR_FILENO))
		return;
	pthread_mutex_lock(&progress.lock);
	if (!progress.started && !progress.done && step != NULL)
		progress.started = pthread_create(&progress.thread, NULL,
						  step_watch, NULL) == 0;
	progress.step = step;
	progress.gen++;
	pthread_cond_signal(&progress.changed);
	pthread_mutex_unlock(&progress.lock);
}

void dt_session_steps_end(void)
{
	pthread_mutex_lock(&progress.lock);
	progress.done = true;
	pthread_cond_signal(&progress.changed);
	pthread_mutex_unlock(&progress.lock);
	if (progress.started)
		pthread_join(progress.thread, NULL);
	progress.started = false;
}
