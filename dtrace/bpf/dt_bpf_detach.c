/* SPDX-License-Identifier: MIT */
/*
 * dt_bpf_detach.c: the session's links closed at its end, without making
 * the user wait for the kernel.
 *
 * Closing a link detaches its program, and the kernel waits for a grace
 * period before the close returns.  Measured on 6.18 (2 CPUs):
 *   - a link on a tracepoint's perf event (the syscall provider per call):
 *     22 ms each, one at a time whatever the threads: when an event's last
 *     user goes, the kernel waits for the grace period
 *     (tracepoint_synchronize_unregister()) holding its global event_mutex.
 *     360 take 8 s, and meanwhile whatever else takes that lock waits: a
 *     tracer's perf_event_open() of a tracepoint, a read of a tracefs
 *     event's "format" or "id" (another dtrace starting).  Disabling the
 *     events first (PERF_EVENT_IOC_DISABLE) changes nothing; neither does
 *     the BPF link on the event: closing it detaches the program at once,
 *     but the release of the event that follows pays the same.
 *   - a perf-event uprobe: about 0.12 s each, one at a time as well.
 *   - a uprobe_multi link: about 55 ms each, but concurrent closes
 *     overlap: 2,152 take 119 s from one thread, 3 s from 64.
 * Hence two kinds (dt_bpf.c keeps them apart): links on perf events,
 * closed from one thread, and the others, from up to DT_CLOSE_THREADS.
 *
 * dtrace closes links for at most DT_DETACH_FOREGROUND_NS; the links left
 * then go to a process of their own, the detacher, which inherited them:
 * made by a double fork (init's child, not dtrace's), in a session of its
 * own and named "dtrace-detach", it closes every other descriptor it
 * inherited at once (the output, the terminal, pipes: nothing waits on
 * it), then the links, and exits.  dtrace exits at once, its output final
 * (dt_bpf_fini() runs after the last record was printed and flushed), its
 * exit status its own.  Nothing fires meanwhile: the session is stopped
 * (dt_prog_stop()), and every program leaves at its activity check.  The
 * detacher leaves event_mutex free between two closes for half as long as
 * it held it (DT_DETACH_PAUSE_DIV): a dtrace started meanwhile takes the lock in those
 * gaps, where 64 closing threads queued on the lock before it made each
 * of its reads wait a second.  When the detacher cannot be made, dtrace
 * closes the links itself, and says so on a terminal once that has taken
 * a second ("dtrace: detaching N links...").
 *
 * Invariants: dtrace is single-threaded by the time dt_bpf_fini() runs
 * (the gate's thread and the metrics server end before, in dt_close()),
 * so the detacher may start threads of its own; the detacher never
 * returns into dtrace's code and ends with _exit() (nothing of stdio is
 * flushed twice); dtrace's copies of the links are closed before the
 * detacher closes its own, so that the slow close is always the
 * detacher's.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dt_bpf_detach.h"
#include "dt_impl.h"

#define DT_CLOSE_THREADS	64
#define DT_CLOSE_PER_THREAD	2	/* links a thread must have to start */
#define DT_CLOSE_STACK		(64 * 1024)

/* How long dtrace closes links itself before handing the rest over. */
#define DT_DETACH_FOREGROUND_NS	(200ull * 1000000)
/* How long a step may take before a terminal is told about it. */
#define DT_DETACH_PROGRESS_NS	(1000ull * 1000000)
/* The detacher's pause after a link on a perf event: how long its close
 * took, divided by this (2: the lock is free a third of the time). */
#define DT_DETACH_PAUSE_DIV	2

/* The links to close, by kind, and how. */
typedef struct detach_work {
	int *fds[2];		/* [0] overlapping closes, [1] on perf events */
	int n[2];
	uint64_t deadline;	/* CLOCK_MONOTONIC; 0: until all are closed */
	bool polite;		/* the detacher: pauses between perf closes */
	uint64_t start;		/* for progress: when detaching began */
	bool progress, shown;	/* tell a terminal after a second; told */
} detach_work_t;

static void progress_tick(detach_work_t *w)
{
	if (!w->progress || w->shown ||
	    dt_now_ns() - w->start < DT_DETACH_PROGRESS_NS)
		return;
	w->shown = true;
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "dtrace: detaching %d links...\n",
			w->n[0] + w->n[1]);
}

static bool past(const detach_work_t *w)
{
	return w->deadline != 0 && dt_now_ns() >= w->deadline;
}

/* Moves the fds not closed (>= 0) to the front; returns how many. */
static int compact(int *fds, int n)
{
	int left = 0;

	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			fds[left++] = fds[i];
	return left;
}

/* One thread's share of the overlapping links: fds[first],
 * fds[first + stride]..., each set to -1 once closed. */
typedef struct close_job {
	detach_work_t *w;
	int first, stride;
} close_job_t;

static void *close_stride(void *arg)
{
	close_job_t *job = arg;
	int *fds = job->w->fds[0];

	for (int i = job->first; i < job->w->n[0]; i += job->stride) {
		if (past(job->w))
			break;
		close(fds[i]);
		fds[i] = -1;
		if (job->first == 0)	/* the calling thread */
			progress_tick(job->w);
	}
	return NULL;
}

/* The overlapping links, from several threads. */
static void close_overlapping(detach_work_t *w)
{
	pthread_t tid[DT_CLOSE_THREADS];
	close_job_t jobs[DT_CLOSE_THREADS];
	bool started[DT_CLOSE_THREADS] = { false };
	int want = w->n[0] / DT_CLOSE_PER_THREAD;
	pthread_attr_t attr;

	if (want > DT_CLOSE_THREADS)
		want = DT_CLOSE_THREADS;
	if (want < 2)
		want = 1;
	for (int t = 0; t < want; t++)
		jobs[t] = (close_job_t){ w, t, want };
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, DT_CLOSE_STACK);
	for (int t = 1; t < want; t++)
		started[t] = pthread_create(&tid[t], &attr, close_stride,
					    &jobs[t]) == 0;
	pthread_attr_destroy(&attr);
	/* This thread takes slot 0 and every slot whose thread failed. */
	for (int t = 0; t < want; t++)
		if (!started[t])
			close_stride(&jobs[t]);
	for (int t = 1; t < want; t++)
		if (started[t])
			pthread_join(tid[t], NULL);
	w->n[0] = compact(w->fds[0], w->n[0]);
}

static void pause_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000),
			       (long)(ns % 1000000000) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The links on perf events, one at a time. */
static void close_perf(detach_work_t *w)
{
	int *fds = w->fds[1];

	for (int i = 0; i < w->n[1] && !past(w); i++) {
		uint64_t t0 = dt_now_ns();
		close(fds[i]);
		fds[i] = -1;
		progress_tick(w);
		if (w->polite && i + 1 < w->n[1])
			pause_ns((dt_now_ns() - t0) / DT_DETACH_PAUSE_DIV);
	}
	w->n[1] = compact(fds, w->n[1]);
}

static void close_links(detach_work_t *w)
{
	close_overlapping(w);
	close_perf(w);
}

static int fd_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Closes the descriptors lo..hi, both included. */
static void close_span(unsigned lo, unsigned hi)
{
	if (lo > hi || close_range(lo, hi, 0) == 0)
		return;
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = lo; fd <= (long)hi && fd < max; fd++)
		close((int)fd);
}

/* Every descriptor but keep[0..n), which it sorts. */
static void close_others(int *keep, int n)
{
	unsigned lo = 0;

	qsort(keep, (size_t)n, sizeof(*keep), fd_cmp);
	for (int i = 0; i < n; i++) {
		if ((unsigned)keep[i] > lo)
			close_span(lo, (unsigned)keep[i] - 1);
		lo = (unsigned)keep[i] + 1;
	}
	close_span(lo, ~0u);
}

/*
 * The detacher: holds nothing but the links and the read end of go (whose
 * writers, dtrace and the first child, close it once their copies of the
 * links are closed), closes the links, and ends.
 */
static void __attribute__((noreturn)) detacher(detach_work_t *w,
						const int go[2])
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	int nkeep = w->n[0] + w->n[1] + 1;
	int *keep = malloc((size_t)nkeep * sizeof(*keep));
	char c;

	if (keep == NULL)
		_exit(1);	/* the kernel closes the links at the exit */
	(void)setsid();
	(void)prctl(PR_SET_NAME, "dtrace-detach", 0, 0, 0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		signal(sigs[i], SIG_DFL);
	for (int k = 0, j = 0; k < 2; k++)
		for (int i = 0; i < w->n[k]; i++)
			keep[j++] = w->fds[k][i];
	keep[nkeep - 1] = go[0];
	close_others(keep, nkeep);
	while (read(go[0], &c, 1) < 0 && errno == EINTR)
		;
	close(go[0]);
	w->deadline = 0;
	w->polite = true;
	w->progress = false;
	close_links(w);
	_exit(0);
}

/* Hands the links of w over to a detacher, and closes dtrace's copies;
 * 0 when the detacher holds them. */
static int detach_in_background(detach_work_t *w)
{
	int go[2], status = -1;

	/* the tests' way to see dtrace close them itself */
	if (getenv("DTRACE_FAULT_DETACH") != NULL)
		return -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -1;
	pid_t child = fork();
	if (child == 0) {
		pid_t grandchild = fork();
		if (grandchild == 0)
			detacher(w, go);
		_exit(grandchild < 0 ? 1 : 0);
	}
	close(go[0]);
	if (child > 0)
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	bool held = child > 0 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0;
	/* the detacher's copies keep the links: these closes are quick */
	for (int k = 0; held && k < 2; k++)
		for (int i = 0; i < w->n[k]; i++)
			close(w->fds[k][i]);
	close(go[1]);
	return held ? 0 : -1;
}

void dt_bpf_detach_links(int *fds, int n, int *perf_fds, int nperf)
{
	detach_work_t w = { { fds, perf_fds }, { n, nperf } };

	w.start = dt_now_ns();
	w.deadline = w.start + DT_DETACH_FOREGROUND_NS;
	close_links(&w);
	if (w.n[0] + w.n[1] == 0 || detach_in_background(&w) == 0)
		return;
	w.deadline = 0;
	w.progress = true;
	close_links(&w);
}
