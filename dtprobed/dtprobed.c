/* SPDX-License-Identifier: MIT */
/*
 * dtprobed.c: the USDT registration daemon.
 *
 *	dtprobed [-F] [-s socket] [-d statedir] [-m mappath]
 *		 [-S sites] [-B bytes] [-M bytes] [-L lines] [-T lines]
 *
 * Programs built with `dtrace -G` send their provider descriptions here over
 * a SOCK_SEQPACKET Unix socket (one message per connection, format in
 * dtprobed_proto.h); dtprobed records them per process (dtp_state.c) for the
 * usdt provider of every dtrace session.
 *
 * Trust.  The sender's pid comes from SO_PEERCRED, never from the message;
 * a message is at most DTPV_MSG_MAX bytes (a longer one is seen truncated
 * through MSG_TRUNC and refused); it is parsed in a jailed parser process
 * (dtp_msg.c); a pid sending more than its share is refused until the next
 * window; a user's registrations are bounded by its budget (dtp_budget.c:
 * sites, bytes of state, its log lines).  A refusal is logged with the pid
 * and the reason, within the log's bounds, and the daemon goes on.  The
 * privileged (root, dtprobed's user) are served first (see "Serving
 * order").  Connections are accepted at once and served as their messages
 * arrive, each given at most DTP_RECV_MS to deliver it, within bounds per
 * user and in all (see "Connections waiting"), so silent clients delay
 * nobody.  A registration is answered (DTPV_OP_DONE) once every subscribed
 * dtrace session has acked it or DTP_ACK_MS have passed, while the next
 * messages are served (dtp_subs.c; a session that does not read is not
 * waited for); with no session subscribed, before it is parsed (see
 * register_message()).
 *
 * One daemon serves a socket: it holds a lock on SOCKET.lock while it runs
 * (lock_socket_path()), and a second one refuses to start.
 *
 * Options override the environment (DTPROBED_SOCKET, DTPROBED_STATEDIR,
 * DTPROBED_MAP), which overrides the defaults of usdt_reg.h.  An empty map
 * path (-m '') runs without the BPF map.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "dtprobed.h"

#define DTP_RECV_MS	200
/* Connections the kernel holds before dtprobed accepts them: a program
 * forking hundreds of workers connects hundreds of times at once. */
#define DTP_BACKLOG	1024

static bool foreground;
static volatile sig_atomic_t quit;

void dtp_log(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (foreground) {
		fprintf(stderr, "dtprobed: ");
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	} else {
		vsyslog(prio, fmt, ap);
	}
	va_end(ap);
}

/* The reason text may come from the jailed parser: printable only. */
static void sanitize(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* Log the refusal of a message of pid, sent as uid, within the log's
 * bounds (dtp_budget.c); budget: refused for uid's budget. */
static void refuse(uid_t uid, pid_t pid, char *why, bool budget)
{
	if (!dtp_log_ok(uid, budget))
		return;
	sanitize(why);
	dtp_log(LOG_WARNING, "refused registration from pid %d: %s", (int)pid,
		why);
}

/*
 * Peers.  The sender's pid (SO_PEERCRED) is its pid when it connected; its
 * message is served later, seconds later under load, when the pid may
 * name another process (the sender exited and the pid was given again),
 * which would receive the registration.  So the process itself is held
 * from the accept: a pidfd the kernel took at connect (SO_PEERPIDFD, Linux
 * 6.5), else one opened at the accept (pidfd_open(), a smaller window: the
 * pid between connect and accept).  When served, a registration or an
 * unregistration applies only if that process still runs once its
 * mappings were read: while it runs, its pid names it.  A kernel with
 * neither gives no pidfd (-1), and the pid is trusted as before.
 */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD	77
#endif

/* The pidfd of cfd's peer, pid; -1 when the kernel has none to give (see
 * "Peers"), -2 when the peer is gone already. */
static int peer_pidfd(int cfd, pid_t pid)
{
	socklen_t len = sizeof(int);
	int fd = -1;

	if (getsockopt(cfd, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == 0)
		return fd;
	if (errno == ESRCH)
		return -2;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0)
		return fd;
	return errno == ESRCH ? -2 : -1;
}

/* Does the process of pidfd still run?  (No pidfd: assumed so.) */
static bool peer_runs(int pidfd)
{
	struct pollfd pfd = { pidfd, POLLIN, 0 };

	/* a pidfd is readable once its process exited */
	return pidfd < 0 || poll(&pfd, 1, 0) == 0;
}

/* Listen on path, a socket of mode mode. */
static int listen_on(const char *path, mode_t mode)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		dtp_log(LOG_ERR, "socket path too long: %s", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto fail;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    chmod(path, mode) != 0 || listen(fd, DTP_BACKLOG) != 0)
		goto fail;
	return fd;
fail:
	dtp_log(LOG_ERR, "cannot listen on %s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Is buf a bare header of operation op (a subscription, a sync)? */
static bool is_bare(const unsigned char *buf, ssize_t n, uint16_t op)
{
	dtpv_msg_t h;

	if (n != (ssize_t)sizeof(h))
		return false;
	memcpy(&h, buf, sizeof(h));
	return memcmp(h.magic, DTPV_MAGIC, 4) == 0 &&
	       h.version == DTPV_VERSION && h.op == op &&
	       h.size == sizeof(h);
}

/* An unregistration of pid (pidfd, see "Peers"): from a process that
 * exited, it is left to dtp_state_check(), which forgets the process's
 * registrations, since its pid may name another process now. */
static void unregister(const unsigned char *msg, size_t len, uid_t uid,
		       pid_t pid, int pidfd)
{
	char provider[DTPV_NAME_MAX], why[256] = "";
	uint64_t site;

	if (dtp_msg_unregistration(msg, len, provider, &site, why,
				   sizeof(why)) != 0)
		refuse(uid, pid, why, false);
	else if (peer_runs(pidfd))
		dtp_state_unregister(pid, provider, site);
}

/*
 * A fault for tests: with DTPROBED_FAULT_PARSE_DELAY=MS in the daemon's
 * environment, each registration's parse starts MS milliseconds late, as
 * on a loaded machine, so that a test sees what waits for it and what does
 * not (test/sh/dtprobed/dtprobed_answer.sh).
 */
static void fault_parse_delay(void)
{
	static long ms = -1;

	if (ms < 0) {
		const char *s = getenv("DTPROBED_FAULT_PARSE_DELAY");
		ms = s != NULL ? strtol(s, NULL, 10) : 0;
		if (ms < 0 || ms > 10000)
			ms = 0;
	}
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* The count of sites of a message whose header was checked (untrusted:
 * the parse checks it against the message). */
static uint64_t header_sites(const unsigned char *msg)
{
	dtpv_msg_t h;

	memcpy(&h, msg, sizeof(h));
	return h.nsites;
}

/* Read what the registration of base needs of pid, the sender (pidfd,
 * see "Peers"), into snap: true, or false (nothing to free) when it cannot
 * be read, with why, or when the sender exited (the pid may name another
 * process now).  A sender that exited, a fork child that ended at once, is
 * not refused: nothing of it is left to register, nor to say. */
static bool snap_of_sender(pid_t pid, int pidfd, uint64_t base,
			   dtp_snap_t *snap, char *why, size_t whysz)
{
	if (!peer_runs(pidfd) ||
	    dtp_state_snap(pid, base, snap, why, whysz) != 0)
		return false;
	if (peer_runs(pidfd))
		return true;
	dtp_state_snap_free(snap);
	return false;
}

/*
 * The answer to a registration.  The registering process waits for it in
 * its start-up.  With a session subscribed, it comes once the sessions
 * placed the process's probes (dtp_subs_notify(), which keeps cfd until
 * then: returns true).  With none, nothing needs
 * the registration before the process goes on: the daemon reads what it
 * needs of the live process (dtp_state_snap(): its start time and
 * mappings), answers, and only then parses and applies the message, off
 * the process's start-up.  A reader of the state sends DTPV_OP_SYNC first:
 * the daemon serves one message at a time, so whatever it answered before
 * is applied by the time it answers the sync.
 */
static bool register_message(int cfd, const unsigned char *msg, size_t len,
			     const struct ucred *cred, int pidfd)
{
	char why[256] = "";
	pid_t pid = cred->pid;
	usdt_reg_t *reg;
	uint64_t base, parsed_base;
	dtp_snap_t snap;
	bool answered = false, kept = false;
	int op, rc;

	if (dtp_msg_header(msg, len, &base, why, sizeof(why)) != 0) {
		refuse(cred->uid, pid, why, false);
		dtp_answer(cfd, pid, DTPV_OP_DONE);
		return false;
	}
	/* Past its budget, told from the header alone: refused at once, at
	 * no cost of a parse. */
	if (dtp_state_over_budget(cred->uid, pid, header_sites(msg), why,
				  sizeof(why))) {
		refuse(cred->uid, pid, why, true);
		dtp_answer(cfd, pid, DTPV_OP_REFUSED);
		return false;
	}
	if (!snap_of_sender(pid, pidfd, base, &snap, why, sizeof(why))) {
		if (peer_runs(pidfd))
			refuse(cred->uid, pid, why, false);
		dtp_answer(cfd, pid, DTPV_OP_DONE);
		return false;
	}
	snap.uid = cred->uid;
	if (dtp_subs_count() == 0) {
		dtp_answer(cfd, pid, DTPV_OP_DONE);
		answered = true;
		/* The answer woke the process with the hint that its waker
		 * would sleep, which put it on this CPU, where it waited for
		 * the parse: 0.3 ms of the 1.4 ms registering 1,000 probes
		 * cost its start on 2 CPUs (bench/usdt_reg.sh). */
		sched_yield();
	}
	fault_parse_delay();
	rc = dtp_msg_parse(msg, len, &op, &parsed_base, &reg, why,
			   sizeof(why));
	if (rc == 0)
		rc = dtp_state_apply_snap(pid, &snap, reg, why, sizeof(why));
	dtp_state_snap_free(&snap);
	if (rc != 0)
		refuse(cred->uid, pid, why, rc == DTP_OVER_BUDGET);
	if (answered)
		return false;
	if (rc == 0)
		kept = dtp_subs_notify(pid, cfd);
	else
		dtp_answer(cfd, pid, DTPV_OP_DONE);
	return kept;
}

/* Serve one connection whose message arrived: apply it and answer with
 * DTPV_OP_DONE, unless it was a subscription; a sync is only answered.
 * Returns true if cfd is kept: a subscriber, or a registration whose
 * answer waits for the subscribers (dtp_subs.c). */
static bool serve(int cfd, unsigned char *buf, const struct ucred *cred,
		  int pidfd)
{
	pid_t pid = cred->pid;
	char why[256] = "";
	ssize_t n;

	n = recv(cfd, buf, DTPV_MSG_MAX, MSG_DONTWAIT | MSG_TRUNC);
	if (n <= 0)
		return false;	/* connected and closed: nothing to say */
	if ((size_t)n > DTPV_MSG_MAX) {
		snprintf(why, sizeof(why), "message of %zd bytes exceeds %u",
			 n, DTPV_MSG_MAX);
		refuse(cred->uid, pid, why, false);
	} else if (is_bare(buf, n, DTPV_OP_SUBSCRIBE)) {
		return dtp_subs_add(cfd, cred);
	} else if (is_bare(buf, n, DTPV_OP_SYNC)) {
		/* answered below, after all that came before; a session
		 * reading the state may subscribe soon */
		if (dtp_privileged(cred->uid))
			dtp_tracing_note();
	} else if (dtp_msg_is_unregistration(buf, (size_t)n)) {
		unregister(buf, (size_t)n, cred->uid, pid, pidfd);
	} else {
		return register_message(cfd, buf, (size_t)n, cred, pidfd);
	}
	dtp_answer(cfd, pid, DTPV_OP_DONE);
	return false;
}

/*
 * Connections waiting for their message.  Every connection is accepted at
 * once and kept here until its message arrives (then served) or
 * DTP_RECV_MS pass (then refused), so a client that connects and stays
 * silent delays nobody.  An unprivileged user may hold DTP_CONNS_PER_UID
 * of them at once, and all of them DTP_CONNS_MAX - DTP_CONNS_RESERVE; the
 * privileged (dtp_privileged()) have no share of their own, so that a
 * root program forking 200 workers, each registering at once, is served
 * whole (a share of 32 once refused a third of them), and the reserve
 * stays theirs whatever other users hold.  A connection beyond is closed
 * at once and logged, which the registration code sees and retries a few
 * times.
 */
#define DTP_CONNS_MAX		512
#define DTP_CONNS_RESERVE	256
#define DTP_CONNS_PER_UID	32

typedef struct conn {
	int fd;
	struct ucred cred;
	int pidfd;		/* the sender's ("Peers"), or -1 */
	uint64_t deadline;	/* dtp_now_ms() after which it is refused */
	bool ready;		/* its message came (the last poll) */
} conn_t;

static conn_t conns[DTP_CONNS_MAX];
static int nconns;

static int conns_of_uid(uid_t uid)
{
	int n = 0;

	for (int i = 0; i < nconns; i++)
		n += conns[i].cred.uid == uid;
	return n;
}

/* Is there room for one more connection of uid? */
static bool conns_room(uid_t uid)
{
	int unprivileged = 0;

	if (nconns == DTP_CONNS_MAX)
		return false;
	if (dtp_privileged(uid))
		return true;
	for (int i = 0; i < nconns; i++)
		unprivileged += !dtp_privileged(conns[i].cred.uid);
	return unprivileged < DTP_CONNS_MAX - DTP_CONNS_RESERVE &&
	       conns_of_uid(uid) < DTP_CONNS_PER_UID;
}

/* Accept what the listening socket holds, within the bounds: a pid's
 * share of messages per window (each connection counts as one) and the
 * connections a user may hold. */
static void conns_accept(int lfd)
{
	for (int k = 0; k < 64; k++) {
		struct ucred cred;
		socklen_t clen = sizeof(cred);
		int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		int pidfd;
		char why[128];

		if (cfd < 0)
			return;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 ||
		    cred.pid <= 0) {
			close(cfd);
			continue;
		}
		if (!dtp_state_rate_ok(cred.pid)) {
			snprintf(why, sizeof(why), "too many messages");
			refuse(cred.uid, cred.pid, why, false);
			close(cfd);
			continue;
		}
		if (!conns_room(cred.uid)) {
			snprintf(why, sizeof(why), "too many connections of "
				 "uid %u", (unsigned)cred.uid);
			refuse(cred.uid, cred.pid, why, false);
			close(cfd);
			continue;
		}
		pidfd = peer_pidfd(cfd, cred.pid);
		if (pidfd == -2) {
			close(cfd);	/* it exited: see snap_of_sender() */
			continue;
		}
		conns[nconns++] = (conn_t){ cfd, cred, pidfd,
					    dtp_now_ms() + DTP_RECV_MS, false };
	}
}

static void conn_close_pidfd(conn_t *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
}

/* Drop the connections served (fd -1), keeping the others in their order:
 * the order they came in. */
static void conns_compact(void)
{
	int j = 0;

	for (int i = 0; i < nconns; i++)
		if (conns[i].fd >= 0)
			conns[j++] = conns[i];
	nconns = j;
}

/*
 * Serving order.  The messages of the privileged (dtp_privileged(): root,
 * dtprobed's user) are served first in each round of poll(), then at most
 * DTP_SERVE_UNPRIVILEGED of the others; those left wait for the next round,
 * after the listening socket was read again, so that a root program
 * starting among a flood of other users' registrations waits for a few
 * of them, not for all.
 */
#define DTP_SERVE_UNPRIVILEGED	4

/* Serve the ready connections of the privileged, or (privileged false)
 * up to DTP_SERVE_UNPRIVILEGED of the others. */
static void conns_serve_pass(unsigned char *buf, bool privileged)
{
	int served = 0;

	/* In the order they came: the oldest has waited longest (200
	 * workers forking at once, served newest first, left the first
	 * ones past the 200 ms their registration waits). */
	for (int i = 0; i < nconns; i++) {
		if (!conns[i].ready ||
		    dtp_privileged(conns[i].cred.uid) != privileged)
			continue;
		if (!privileged && served++ == DTP_SERVE_UNPRIVILEGED)
			break;
		if (!serve(conns[i].fd, buf, &conns[i].cred, conns[i].pidfd))
			close(conns[i].fd);
		conn_close_pidfd(&conns[i]);
		conns[i].fd = -1;
		/* the acks that came meanwhile: a long round of
		 * registrations answers each as its sessions ack it */
		dtp_subs_poll();
	}
	conns_compact();
}

/* Has the message of connection c come since the last poll?  (Serving
 * a round of many registrations may outlast a connection's time.) */
static bool conn_has_message(const conn_t *c)
{
	struct pollfd pfd = { c->fd, POLLIN, 0 };

	return poll(&pfd, 1, 0) == 1;
}

/* Refuse the connections past their time with no message. */
static void conns_expire(void)
{
	uint64_t now = dtp_now_ms();
	char why[128];

	for (int i = 0; i < nconns; i++) {
		if (conns[i].ready || now < conns[i].deadline ||
		    conn_has_message(&conns[i]))
			continue;
		snprintf(why, sizeof(why), "no message within %d ms",
			 DTP_RECV_MS);
		refuse(conns[i].cred.uid, conns[i].cred.pid, why, false);
		close(conns[i].fd);
		conn_close_pidfd(&conns[i]);
		conns[i].fd = -1;
	}
	conns_compact();
}

/* Serve the connections whose message came (revents of their pollfd, one
 * per connection in order), in the serving order; refuse those past their
 * time. */
static void conns_serve(const struct pollfd *pfd, int n, unsigned char *buf)
{
	for (int i = 0; i < n && i < nconns; i++)
		conns[i].ready = pfd[i].revents != 0;
	conns_serve_pass(buf, true);
	conns_serve_pass(buf, false);
	conns_expire();
}

/* How long poll() may sleep: until the next deadline, at most 1 s. */
static int poll_timeout(void)
{
	uint64_t now = dtp_now_ms(), next = now + 1000;
	int waiter = dtp_subs_expire();

	for (int i = 0; i < nconns; i++)
		if (conns[i].deadline < next)
			next = conns[i].deadline;
	if (waiter >= 0 && now + (uint64_t)waiter < next)
		next = now + (uint64_t)waiter;
	return next > now ? (int)(next - now) : 0;
}

/*
 * One daemon a socket.  A second dtprobed on the same paths once ran
 * without complaint, and SIGTERM to the older one unlinked the newer
 * one's socket, every registration lost unlogged.  The daemon takes an
 * flock on SOCKET.lock before it touches the state, the map or the
 * socket, and holds it while it runs (through the fork of detach(): the
 * lock belongs to the open file); a second one finds it taken and refuses
 * to start, naming the pid written in the file.  The file stays after
 * exit: removing it would race with a daemon starting.
 */
static int lock_socket_path(const char *sock)
{
	char path[PATH_MAX], pid[32] = "";
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s.lock", sock);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		dtp_log(LOG_ERR, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		dtp_log(LOG_ERR, "another dtprobed (pid %s) serves %s: %s is "
			"locked", *pid ? pid : "unknown", sock, path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Write the daemon's pid (after detach()) into the lock file. */
static void lock_note_pid(int fd)
{
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());

	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		dtp_log(LOG_WARNING, "cannot write the lock file: %s",
			strerror(errno));
}

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: dtprobed [-F] [-s socket] [-d statedir] "
		"[-m mappath]\n"
		"                [-S sites] [-B bytes] [-M bytes] [-L lines] "
		"[-T lines]\n");
	exit(2);
}

static int detach(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	setsid();
	if (chdir("/") != 0)
		return -1;
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sock = usdt_reg_socket_path();
	const char *statedir = usdt_reg_statedir();
	const char *mappath = usdt_reg_map_path();
	unsigned char *buf;
	time_t last_check = 0;
	char priv[PATH_MAX];
	int opt, lfd, pfd_priv, lockfd;

	if (argc == 2 && strcmp(argv[1], DTP_PARSER_ARG) == 0)
		dtp_msg_parser_main();
	while ((opt = getopt(argc, argv, "Fs:d:m:S:B:M:L:T:h")) != -1) {
		switch (opt) {
		case 'F': foreground = true; break;
		case 's': sock = optarg; break;
		case 'd': statedir = optarg; break;
		case 'm': mappath = optarg; break;
		case 'S': case 'B': case 'M': case 'L': case 'T':
			if (dtp_limits_option(opt, optarg) != 0) {
				fprintf(stderr, "dtprobed: -%c %s: not a "
					"number in range\n", opt, optarg);
				usage();
			}
			break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (!foreground)
		openlog("dtprobed", LOG_PID, LOG_DAEMON);
	/* Each message's buffers are of the same sizes as the last one's:
	 * keep them, instead of faulting fresh pages in every time (8 of the
	 * daemon's 120 page faults for a program of 1,000 probes). */
	mallopt(M_MMAP_THRESHOLD, 16 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	lockfd = lock_socket_path(sock);
	if (lockfd < 0)
		return 1;
	buf = malloc(DTPV_MSG_MAX);
	if (buf == NULL || dtp_state_init(statedir, mappath) != 0)
		return 1;
	dtp_discover(sock);
	dtp_tracing_init(sock);
	/* the privileged socket (dtprobed_proto.h) first: root's programs
	 * that find the public one find it too */
	snprintf(priv, sizeof(priv), "%s%s", sock, DTPV_PRIV_SUFFIX);
	pfd_priv = listen_on(priv, 0600);
	lfd = listen_on(sock, 0666);
	if (lfd < 0 || pfd_priv < 0)
		return 1;
	if (!foreground && detach() != 0)
		return 1;
	lock_note_pid(lockfd);
	dtp_log(LOG_INFO, "listening on %s, state in %s", sock, statedir);
	while (!quit) {
		struct pollfd pfd[2 + DTP_SUBS_MAX + DTP_CONNS_MAX] = {
			{ pfd_priv, POLLIN, 0 }, { lfd, POLLIN, 0 } };
		int ns = dtp_subs_pollfds(pfd + 2), nc = nconns;

		for (int i = 0; i < nc; i++)
			pfd[2 + ns + i] = (struct pollfd){ conns[i].fd, POLLIN, 0 };
		if (poll(pfd, (nfds_t)(2 + ns + nc), poll_timeout()) >= 0) {
			dtp_subs_read(pfd + 2, ns);
			conns_serve(pfd + 2 + ns, nc, buf);
			if (pfd[0].revents & POLLIN)
				conns_accept(pfd_priv);
			if (pfd[1].revents & POLLIN)
				conns_accept(lfd);
		}
		(void)dtp_subs_expire();
		dtp_tracing_update();
		dtp_msg_prepare();
		if (time(NULL) != last_check) {
			last_check = time(NULL);
			dtp_state_check();
			dtp_log_tick();
		}
	}
	for (int i = 0; i < nconns; i++) {
		close(conns[i].fd);
		conn_close_pidfd(&conns[i]);
	}
	dtp_subs_close();
	dtp_tracing_close();
	/* The state stays: a restarted daemon picks it up. */
	unlink(sock);
	unlink(priv);
	close(lfd);
	close(pfd_priv);
	close(lockfd);
	free(buf);
	return 0;
}
