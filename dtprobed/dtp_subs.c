/* SPDX-License-Identifier: MIT */
/*
 * dtp_subs.c: the subscribed dtrace sessions, and the registrations whose
 * answer waits for them.
 *
 * A subscriber is a dtrace session that asked to hear of each registration
 * before the registering process goes on (dtprobed_proto.h, Handshake).
 * Only root or the daemon's own user may subscribe, since a subscriber
 * delays registrations by up to DTP_ACK_MS.  A subscriber whose connection
 * closes or fails is dropped.
 *
 * Waiting.  A registration that subscribers were told of waits, its
 * connection kept (a waiter), until each of them acked its pid or
 * DTP_ACK_MS passed; meanwhile the daemon serves the next messages, so
 * that the sessions place one process's probes while the daemon records
 * the next (200 workers forked at once were answered one after another,
 * each after its session's ack, and most of them went on unanswered,
 * their firings unnamed).
 *
 * A subscriber that does not read.  One whose process is stopped
 * (SIGSTOP, Ctrl-Z, a debugger: state T or t) when told, or whose socket
 * is full of notices it did not read, is lagging: it is still told of
 * each registration but not waited for until it acks again, which a
 * resumed session does as it reads the notices it missed.  A stopped
 * session once added DTP_ACK_MS (100 ms) to the start of every program
 * that registered.  A session that is only slow (a sanitizer build, a
 * loaded machine) is waited for, each registration DTP_ACK_MS at most,
 * while the daemon serves the next ones.
 *
 * Sessions to come.  While a session is subscribed, or read the state in
 * the last DTPV_TRACING_MS (it does so before it subscribes, and that
 * may be seconds before), the file DTPV_TRACING_SUFFIX beside the
 * socket exists (dtprobed_proto.h): dtrace -G's fork handler registers a
 * child only then.  A program forking children that exit at once cost
 * the daemon a registration, a state file and its removal each: 1,000
 * forks took 1.6 times as long with dtprobed running as without.
 *
 * Invariant: a waiter holds only the descriptors of live subscribers
 * (dropping a subscriber takes its descriptor out of every waiter before
 * the descriptor is closed, since a later connection may reuse the
 * number).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dtprobed.h"
#include "dt_procfs.h"		/* dt_procfs_stat(), from libdtcommon.a */

typedef struct subscriber {
	int fd;
	pid_t pid;
	bool lagging;		/* not waited for until it acks again */
	bool dead;		/* to be dropped by subs_compact() */
} subscriber_t;

static subscriber_t subs[DTP_SUBS_MAX];
static int nsubs;

/* Registrations whose answer waits for the subscribers' acks: as many as
 * the connections dtprobed holds, at most. */
#define DTP_WAITERS_MAX	512

typedef struct waiter {
	int fd;			/* the registering process's connection */
	pid_t pid;
	uint64_t deadline;	/* dtp_now_ms() at which it is answered */
	int nwait;
	int subfd[DTP_SUBS_MAX];	/* the subscribers it waits for */
} waiter_t;

static waiter_t waiters[DTP_WAITERS_MAX];
static int nwaiters;

uint64_t dtp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool notice_send(int fd, int op, pid_t pid)
{
	dtpv_notice_t nt = { .magic = DTPN_MAGIC, .version = DTPV_VERSION,
			     .op = (uint16_t)op, .pid = (uint32_t)pid };

	return send(fd, &nt, sizeof(nt), MSG_DONTWAIT | MSG_NOSIGNAL) ==
	       (ssize_t)sizeof(nt);
}

void dtp_answer(int cfd, pid_t pid, int op)
{
	(void)notice_send(cfd, op, pid);
}

int dtp_subs_count(void)
{
	return nsubs;
}

/* ---- waiters ---- */

static void waiter_answer(int i)
{
	dtp_answer(waiters[i].fd, waiters[i].pid, DTPV_OP_DONE);
	close(waiters[i].fd);
	waiters[i] = waiters[--nwaiters];
}

/* Take subscriber fd out of waiter w; true when it was there. */
static bool waiter_forget(waiter_t *w, int fd)
{
	for (int k = 0; k < w->nwait; k++)
		if (w->subfd[k] == fd) {
			w->subfd[k] = w->subfd[--w->nwait];
			return true;
		}
	return false;
}

/* Subscriber fd acked pid: the oldest waiter of pid that waits for it
 * waits no longer for it (a process registering two providers is told
 * of, and acked, twice). */
static void waiters_acked(int fd, pid_t pid)
{
	int oldest = -1;

	for (int i = 0; i < nwaiters; i++)
		if (waiters[i].pid == pid &&
		    (oldest < 0 || waiters[i].deadline < waiters[oldest].deadline))
			for (int k = 0; k < waiters[i].nwait; k++)
				if (waiters[i].subfd[k] == fd)
					oldest = i;
	if (oldest >= 0 && waiter_forget(&waiters[oldest], fd) &&
	    waiters[oldest].nwait == 0)
		waiter_answer(oldest);
}

/* Subscriber fd is gone: no waiter waits for it. */
static void waiters_drop_sub(int fd)
{
	for (int i = nwaiters - 1; i >= 0; i--)
		if (waiter_forget(&waiters[i], fd) && waiters[i].nwait == 0)
			waiter_answer(i);
}

/* A subscriber does not read: lagging, said once. */
static void sub_lags(subscriber_t *s, const char *why)
{
	if (s == NULL || s->lagging)
		return;
	s->lagging = true;
	dtp_log(LOG_INFO, "subscriber pid %d %s: not waited for until it "
		"acks again", (int)s->pid, why);
}

int dtp_subs_expire(void)
{
	uint64_t now = dtp_now_ms(), next = UINT64_MAX;

	for (int i = nwaiters - 1; i >= 0; i--) {
		if (now < waiters[i].deadline) {
			if (waiters[i].deadline < next)
				next = waiters[i].deadline;
			continue;
		}
		waiter_answer(i);
	}
	return next == UINT64_MAX ? -1 : (int)(next - now);
}

/* ---- subscribers ---- */

static void subs_compact(void)
{
	int j = 0;

	for (int i = 0; i < nsubs; i++) {
		if (subs[i].dead) {
			dtp_log(LOG_INFO, "subscriber pid %d left",
				(int)subs[i].pid);
			waiters_drop_sub(subs[i].fd);
			close(subs[i].fd);
		} else {
			subs[j++] = subs[i];
		}
	}
	nsubs = j;
}

/* Read the acks a subscriber sent; mark it dead if its connection closed
 * or broke. */
static void sub_read(subscriber_t *s)
{
	dtpv_notice_t nt;
	ssize_t n;

	while ((n = recv(s->fd, &nt, sizeof(nt), MSG_DONTWAIT)) > 0) {
		if (n != (ssize_t)sizeof(nt) ||
		    memcmp(nt.magic, DTPN_MAGIC, 4) != 0 ||
		    nt.op != DTPV_OP_ACK || nt.pid == 0)
			continue;
		if (s->lagging)
			dtp_log(LOG_INFO, "subscriber pid %d acks again",
				(int)s->pid);
		s->lagging = false;
		waiters_acked(s->fd, (pid_t)nt.pid);
	}
	if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
		s->dead = true;
}

bool dtp_subs_add(int cfd, const struct ucred *cred)
{
	char why[128];

	if (cred->uid != 0 && cred->uid != geteuid())
		snprintf(why, sizeof(why), "not permitted");
	else if (nsubs == DTP_SUBS_MAX)
		snprintf(why, sizeof(why), "too many subscribers");
	else {
		subs[nsubs++] = (subscriber_t){ .fd = cfd, .pid = cred->pid };
		dtp_log(LOG_INFO, "subscriber pid %d", (int)cred->pid);
		dtp_tracing_note();
		return true;
	}
	dtp_log(LOG_WARNING, "refused subscription from pid %d: %s",
		(int)cred->pid, why);
	return false;
}

int dtp_subs_pollfds(struct pollfd *pfd)
{
	for (int i = 0; i < nsubs; i++)
		pfd[i] = (struct pollfd){ subs[i].fd, POLLIN, 0 };
	return nsubs;
}

void dtp_subs_read(const struct pollfd *pfd, int n)
{
	for (int k = 0; k < n && k < nsubs; k++)
		if (pfd[k].revents != 0)
			sub_read(&subs[k]);
	subs_compact();
}

void dtp_subs_poll(void)
{
	struct pollfd pfd[DTP_SUBS_MAX];
	int n = dtp_subs_pollfds(pfd);

	if (n > 0 && poll(pfd, (nfds_t)n, 0) > 0)
		dtp_subs_read(pfd, n);
	(void)dtp_subs_expire();
}

/* Is the subscriber's process stopped (it reads nothing until resumed)? */
static bool sub_stopped(const subscriber_t *s)
{
	dt_procfs_stat_t st;

	return dt_procfs_stat(s->pid, &st) == 0 &&
	       (st.state == 'T' || st.state == 't');
}

bool dtp_subs_notify(pid_t pid, int cfd)
{
	waiter_t w = { .fd = cfd, .pid = pid,
		       .deadline = dtp_now_ms() + DTP_ACK_MS };

	for (int i = 0; i < nsubs; i++) {
		subscriber_t *s = &subs[i];

		if (!notice_send(s->fd, DTPV_OP_NOTICE, pid)) {
			/* A full buffer: it has not read for long. */
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				s->dead = true;
			else
				sub_lags(s, "reads no notices");
			continue;
		}
		if (!s->lagging && sub_stopped(s))
			sub_lags(s, "is stopped");
		if (!s->lagging)
			w.subfd[w.nwait++] = s->fd;
	}
	subs_compact();
	if (w.nwait == 0 || nwaiters == DTP_WAITERS_MAX) {
		dtp_answer(cfd, pid, DTPV_OP_DONE);
		return false;
	}
	waiters[nwaiters++] = w;
	return true;
}

void dtp_subs_close(void)
{
	while (nwaiters > 0)
		waiter_answer(nwaiters - 1);
	for (int i = 0; i < nsubs; i++)
		close(subs[i].fd);
	nsubs = 0;
}

/* ---- sessions to come (see above) ----------------------------------- */

static char tracing_path[PATH_MAX];
static bool tracing_on;
static uint64_t tracing_until;	/* dtp_now_ms() the last reader's interest
				   lasts until */

void dtp_tracing_init(const char *sock)
{
	snprintf(tracing_path, sizeof(tracing_path), "%s%s", sock,
		 DTPV_TRACING_SUFFIX);
	unlink(tracing_path);	/* a stopped daemon's */
}

void dtp_tracing_note(void)
{
	int fd;

	tracing_until = dtp_now_ms() + DTPV_TRACING_MS;
	if (tracing_on || tracing_path[0] == 0)
		return;
	fd = open(tracing_path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0) {
		dtp_log(LOG_WARNING, "cannot create %s: %s", tracing_path,
			strerror(errno));
		return;
	}
	(void)fchmod(fd, 0644);		/* whatever the umask */
	close(fd);
	tracing_on = true;
}

void dtp_tracing_update(void)
{
	if (tracing_on && nsubs == 0 && dtp_now_ms() >= tracing_until) {
		unlink(tracing_path);
		tracing_on = false;
	}
}

void dtp_tracing_close(void)
{
	if (tracing_path[0] != 0)
		unlink(tracing_path);
	tracing_on = false;
}
