/* SPDX-License-Identifier: MIT */
/*
 * dt_gatewd.c: the exec gate's watchdog.
 *
 * Why.  The exec gate (dt_gate.c) holds every exec on the machine until it
 * answers.  Answered from inside dtrace, the hold depends on dtrace being
 * able to run: stopped by SIGSTOP or a debugger, or starved of CPU (nice
 * 19, SCHED_IDLE, busy neighbours on its CPU), dtrace held every exec of
 * the machine for as long as it did not run, whatever its own timeout said.
 * The bound must hold in every state of dtrace, so what answers the kernel
 * must not share dtrace's fate.  Three designs were weighed:
 *
 *   - answer from the kernel side: fanotify has no BPF hook to answer with,
 *     and BPF LSM needs trampolines this kernel's configuration may lack;
 *   - hold nothing (stop the new process with a signal from a BPF program
 *     at exec, or a uprobe on the loader's entry): the process and its
 *     parent would see the stop (SIGCHLD, WUNTRACED), and a stopped dtrace
 *     would leave it stopped, which is worse;
 *   - a watchdog: a small process forked when the gate opens, the only
 *     reader of the fanotify group, which answers at once from its cache
 *     for executables known not to matter, hands the others to dtrace with
 *     a deadline, and answers FAN_ALLOW itself at the deadline.  A stopped
 *     or starved dtrace then costs an exec at most GATE_HOLD_MAX_MS.
 *
 * The watchdog is the one chosen: it keeps what the gate buys when dtrace
 * is healthy (a program started while tracing is covered from its first
 * instruction) and bounds the cost when it is not.
 *
 * Invariants.
 *   - Every event read is answered, by dtrace's WD_ANSWER or at its
 *     deadline, whichever comes first; an exec waits GATE_HOLD_MAX_MS at
 *     most from the moment the watchdog read it.
 *   - The watchdog owns the only descriptor of the group: when it ends, for
 *     any reason, the kernel lets every pending exec go.  It ends with
 *     dtrace (PR_SET_PDEATHSIG, and the end of the socket), when told to
 *     (WD_STOP), and on any error.
 *   - It runs at a higher priority than anything at the default one (nice
 *     -20, SCHED_OTHER even when dtrace was started under SCHED_IDLE or
 *     SCHED_BATCH), and keeps no descriptor of dtrace's but the group and
 *     its socket.  It allocates nothing after fork(): its tables were made
 *     before.
 *   - It runs in a session of its own (setsid()), so that no signal sent to
 *     dtrace's process group or coming from its terminal reaches it:
 *     `kill -STOP %1` or `kill -STOP -PGID` stops dtrace's whole group, and
 *     a watchdog in that group stopped with it and held every exec for as
 *     long as the job stayed stopped; Ctrl-C, Ctrl-Z and a hangup reach
 *     dtrace alone (it ignores those signals all the same, should they be
 *     sent to its pid).  It has no controlling terminal and opens none.
 *     Only what names its pid, or every process (root's `kill -STOP -1`,
 *     which stops dtrace's whole world anyway), reaches it.
 *   - When dtrace is stopped (its state in /proc is 'T' or 't') or missed a
 *     deadline and has not answered anything since, an exec that is not in
 *     the cache goes on at once; it is still sent to dtrace, marked
 *     answered, so that dtrace learns the file when it runs again.  Such an
 *     exec is not covered from its first instruction: the exec watch
 *     (dt_exec.c) places its probes afterwards and says so.
 *   - A covered exec is marked in the exec watch's map (WD_ARM) before it
 *     goes on, and only when dtrace answered in time: the mark says the
 *     uprobes were in place before the program ran.
 *
 *   - A stop of the watchdog itself (SIGSTOP sent to its pid, a debugger)
 *     is seen by dtrace's gate thread within GATE_WD_CHECK_MS (dt_gate.c),
 *     which ends it: the kernel then lets every pending exec go, and the
 *     gate is closed for the rest of the session (the exec watch remains).
 *
 * Not covered: dtrace and the watchdog both stopped (each by its pid, or
 * every process by `kill -STOP -1`), a cgroup CPU limit
 * that starves both processes, the watchdog's pages being swapped out.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "dt_gatewd.h"
#include "dt_procfs.h"

#define WD_PENDING_MAX	64	/* execs held at once; more pass at once */
#define WD_CACHE_MAX	3072	/* executables remembered; then it starts
				 * over */
#define WD_NICE		(-20)
#define WD_SOCK		3	/* the watchdog's descriptors after start */
#define WD_FAN		4

typedef struct wd_entry {
	gate_key_t key;
	unsigned flags;		/* WD_SETTLED | WD_DYNAMIC | WD_WATCH |
				   WD_INTERP */
} wd_entry_t;

typedef struct wd_pending {
	int fd;			/* the event's file; -1: slot free */
	int pid;
	uint32_t seq;
	uint64_t t0_ns, deadline_ns;
} wd_pending_t;

typedef struct wd {
	int fan_fd, sock;
	pid_t parent;
	int arm_fd;		/* the exec watch's map, or -1 */
	int arm_value;
	bool late;		/* dtrace missed a deadline, nothing since */
	dt_mntns_t mntns;	/* dtrace's mount namespace */
	uint64_t home_mnt;	/* a mount of it the loader was opened
				   through (unique id), 0: none seen yet */
	uint32_t seq;
	wd_pending_t pending[WD_PENDING_MAX];
	dt_htab_t cache;	/* of wd_entry_t, by key: room for
				   WD_CACHE_MAX made before fork() */
	gatewd_stats_t st;
} wd_t;

static uint64_t wd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* --- messages --- */

bool dt_gatewd_send(int sock, const void *msg, size_t len, int fd, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL | flags) == (ssize_t)len;
}

ssize_t dt_gatewd_recv(int sock, void *msg, size_t len, int *fd, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = msg, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};

	*fd = -1;
	ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | flags);
	if (n < 0)
		return -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL;
	     c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (n != (ssize_t)len && *fd >= 0) {
		close(*fd);	/* a message of another size: not ours */
		*fd = -1;
	}
	return n;
}

/* --- the cache of executables whose start-up files were all seen --- */

static bool cache_eq(const void *elem, const void *key)
{
	return gate_key_eq(&((const wd_entry_t *)elem)->key, key);
}

static wd_entry_t *cache_find(wd_t *w, const gate_key_t *k)
{
	return dt_htab_find(&w->cache, gate_key_hash(k), k);
}

/* Never allocates: the table has room for WD_CACHE_MAX entries. */
static void cache_add(wd_t *w, const gate_key_t *k, unsigned flags)
{
	if (dt_htab_count(&w->cache) >= WD_CACHE_MAX)
		dt_htab_clear(&w->cache);	/* full: forget all, dtrace
						   tells again what it knows */
	wd_entry_t *e = dt_htab_insert(&w->cache, gate_key_hash(k), k, NULL);
	if (e != NULL)
		*e = (wd_entry_t){ .key = *k, .flags = flags };
}

/* --- answering --- */

static void wd_allow(wd_t *w, int fd)
{
	struct fanotify_response r = { .fd = fd, .response = FAN_ALLOW };

	/* Fails only when the group goes away, which lets the exec go too. */
	if (write(w->fan_fd, &r, sizeof(r)) < 0)
		return;
}

/* An exec whose executable is settled goes on: covered (marked for the
 * exec watch) when the loader starts it; else its file needs no event any
 * more (a static program, a script, the loader itself), until modified. */
static void wd_settled(wd_t *w, int fd, int pid, unsigned flags)
{
	if (flags & (WD_INTERP | WD_WATCH))
		return;		/* its events are needed (wd_exec, the
				   exec watch) */
	if (flags & WD_DYNAMIC) {
		uint32_t key = (uint32_t)pid, val = (uint32_t)w->arm_value;

		if (w->arm_fd >= 0)
			bpf_map_update_elem(w->arm_fd, &key, &val, BPF_ANY);
	} else if (fanotify_mark(w->fan_fd,
				 FAN_MARK_ADD | FAN_MARK_IGNORED_MASK,
				 FAN_OPEN_EXEC_PERM, fd, NULL) < 0) {
		return;		/* its events keep coming: harmless */
	}
}

/* Whether dtrace is stopped (SIGSTOP, Ctrl-Z, a debugger). */
static bool parent_stopped(const wd_t *w)
{
	dt_procfs_stat_t st;

	return dt_procfs_stat(w->parent, &st) == 0 &&
	       (st.state == 'T' || st.state == 't');
}

static wd_pending_t *pending_free_slot(wd_t *w)
{
	for (int i = 0; i < WD_PENDING_MAX; i++)
		if (w->pending[i].fd < 0)
			return &w->pending[i];
	return NULL;
}

static bool wd_forward(wd_t *w, int fd, int pid, const gate_key_t *k,
		       uint64_t deadline_ns, bool answered, bool foreign)
{
	gatewd_req_t r = {
		.kind = WD_EXEC, .seq = ++w->seq, .pid = pid,
		.answered = answered, .foreign = foreign,
		.deadline_ns = deadline_ns, .key = *k,
	};

	return dt_gatewd_send(w->sock, &r, sizeof(r), fd, MSG_DONTWAIT);
}

/*
 * Whether pid, opening the loader as fd for an exec, runs in a mount
 * namespace other than dtrace's.  Every dynamic exec of the machine asks,
 * and waits for the answer.  The mount fd was opened through answers
 * first: a mount belongs to one namespace and its unique id (Linux 6.8) is
 * never reused, so a loader opened through the mount last seen in
 * dtrace's namespace needs no look into /proc (a statx() of the fd took
 * 1.4 us of CPU where the stat() of /proc/PID/ns/mnt took 5.5, on a
 * loaded development machine).  Another mount (another namespace, or a
 * bind mount in this one) is looked up in /proc.
 */
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE	0x4000U	/* Linux 6.8, newer than the headers */
#endif

static bool wd_foreign(wd_t *w, int fd, int pid)
{
	struct statx sx;
	bool known = statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE,
			   &sx) == 0 && (sx.stx_mask & STATX_MNT_ID_UNIQUE);

	if (known && w->home_mnt != 0 && sx.stx_mnt_id == w->home_mnt)
		return false;
	int foreign = dt_procfs_foreign(pid, &w->mntns);
	if (known && foreign == 0)
		w->home_mnt = sx.stx_mnt_id;
	return foreign > 0;
}

/* One exec: answered now, or held for dtrace (the event's fd is then kept
 * in a pending slot). */
static void wd_exec(wd_t *w, int fd, int pid)
{
	struct stat sb;
	bool foreign = false;

	w->st.nexec++;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		wd_allow(w, fd);
		close(fd);
		return;
	}
	gate_key_t k = gate_key_of(&sb);
	wd_entry_t *e = cache_find(w, &k);
	if (e != NULL && (e->flags & WD_SETTLED) &&
	    !(foreign = (e->flags & WD_INTERP) && wd_foreign(w, fd, pid))) {
		w->st.ncached++;
		wd_settled(w, fd, pid, e->flags);
		wd_allow(w, fd);
		close(fd);
		return;
	}
	wd_pending_t *p = w->late ? NULL : pending_free_slot(w);
	uint64_t now = wd_now_ns();
	uint64_t deadline = now + GATE_HOLD_MAX_MS * 1000000ull;
	if (p != NULL && !parent_stopped(w) &&
	    wd_forward(w, fd, pid, &k, deadline, false, foreign)) {
		*p = (wd_pending_t){ .fd = fd, .pid = pid, .seq = w->seq,
				     .t0_ns = now, .deadline_ns = deadline };
		w->st.nforwarded++;
		return;
	}
	w->st.npassed++;
	wd_allow(w, fd);
	wd_forward(w, fd, pid, &k, now, true, foreign); /* to learn from */
	close(fd);
}

static void wd_release(wd_t *w, wd_pending_t *p)
{
	uint64_t waited = wd_now_ns() - p->t0_ns;

	wd_allow(w, p->fd);
	close(p->fd);
	p->fd = -1;
	w->st.wait_sum_ns += waited;
	if (waited > w->st.wait_max_ns)
		w->st.wait_max_ns = waited;
}

static void wd_answer(wd_t *w, const gatewd_cmd_t *c)
{
	if (c->flags & WD_SETTLED)
		cache_add(w, &c->key, c->flags & (WD_SETTLED | WD_DYNAMIC |
						  WD_INTERP | WD_WATCH));
	for (int i = 0; i < WD_PENDING_MAX; i++) {
		wd_pending_t *p = &w->pending[i];
		if (p->fd < 0 || p->seq != c->seq)
			continue;
		if (c->flags & WD_SETTLED)
			wd_settled(w, p->fd, p->pid, c->flags);
		wd_release(w, p);
		return;
	}
}

/* The execs whose deadline passed go on. */
static void wd_expire(wd_t *w)
{
	uint64_t now = wd_now_ns();

	for (int i = 0; i < WD_PENDING_MAX; i++) {
		wd_pending_t *p = &w->pending[i];
		if (p->fd < 0 || p->deadline_ns > now)
			continue;
		wd_release(w, p);
		w->st.nbound++;
		w->late = true;
	}
}

/* Milliseconds until the next deadline, -1 when none (rounded up). */
static int wd_timeout_ms(const wd_t *w)
{
	uint64_t next = UINT64_MAX, now = wd_now_ns();

	for (int i = 0; i < WD_PENDING_MAX; i++)
		if (w->pending[i].fd >= 0 && w->pending[i].deadline_ns < next)
			next = w->pending[i].deadline_ns;
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)((next - now + 999999) / 1000000);
}

/* --- the loop --- */

static void wd_events(wd_t *w, const char *buf, ssize_t len)
{
	const struct fanotify_event_metadata *md =
		(const struct fanotify_event_metadata *)buf;

	for (; FAN_EVENT_OK(md, len); md = FAN_EVENT_NEXT(md, len)) {
		if (md->fd < 0)
			continue;
		if ((md->mask & FAN_OPEN_EXEC_PERM) &&
		    md->vers == FANOTIFY_METADATA_VERSION) {
			wd_exec(w, md->fd, md->pid);
			continue;
		}
		if (md->mask & FAN_OPEN_EXEC_PERM)
			wd_allow(w, md->fd);
		close(md->fd);
	}
}

/* One message of dtrace.  false: the watchdog ends. */
static bool wd_command(wd_t *w)
{
	gatewd_cmd_t c;
	int fd;
	ssize_t n = dt_gatewd_recv(w->sock, &c, sizeof(c), &fd, MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR;
	if (n != sizeof(c))
		return false;	/* the end, or not dtrace */
	w->late = false;	/* dtrace runs */
	switch (c.kind) {
	case WD_ANSWER:
		wd_answer(w, &c);
		break;
	case WD_ARM:
		if (w->arm_fd >= 0)
			close(w->arm_fd);
		w->arm_fd = fd;
		w->arm_value = c.value;
		return true;
	case WD_STOP: {
		gatewd_req_t r = { .kind = WD_STATS, .stats = w->st };
		dt_gatewd_send(w->sock, &r, sizeof(r), -1, 0);
		return false;
	}
	}
	if (fd >= 0)
		close(fd);
	return true;
}

static void wd_loop(wd_t *w)
{
	char buf[8192]
		__attribute__((aligned(__alignof__(struct fanotify_event_metadata))));

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = w->sock, .events = POLLIN },
			{ .fd = w->fan_fd, .events = POLLIN },
		};
		if (poll(pfd, 2, wd_timeout_ms(w)) < 0 && errno != EINTR)
			return;
		if (pfd[0].revents && !wd_command(w))
			return;
		if (pfd[1].revents & POLLIN) {
			ssize_t len = read(w->fan_fd, buf, sizeof(buf));
			if (len < 0 && errno != EAGAIN && errno != EINTR)
				return;
			if (len > 0)
				wd_events(w, buf, len);
		}
		wd_expire(w);
	}
}

/* --- the process --- */

/* Nothing of dtrace's but the group and the socket, renumbered
 * WD_FAN and WD_SOCK; stdin, stdout (and stderr unless debugging) on
 * /dev/null, so that the watchdog holds no pipe of dtrace's open. */
static bool wd_descriptors(int fan_fd, int sock)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0)
		return false;
	int hi = 64 + (fan_fd > sock ? fan_fd : sock) + null;
	if (dup3(fan_fd, hi + 1, O_CLOEXEC) < 0 ||
	    dup3(sock, hi + 2, O_CLOEXEC) < 0 ||
	    dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
	    (getenv("DTRACE_EXEC_DEBUG") == NULL && dup2(null, 2) < 0) ||
	    dup3(hi + 1, WD_FAN, O_CLOEXEC) < 0 ||
	    dup3(hi + 2, WD_SOCK, O_CLOEXEC) < 0)
		return false;
	return syscall(SYS_close_range, WD_FAN + 1, ~0u, 0) == 0;
}

/* Above the default priority, whatever dtrace was started with. */
static void wd_priority(void)
{
	int policy = sched_getscheduler(0);

	if (policy != SCHED_FIFO && policy != SCHED_RR) {
		struct sched_param sp = { .sched_priority = 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
		setpriority(PRIO_PROCESS, 0, WD_NICE);
	}
}

static void wd_signals(void)
{
	static const int ignored[] = {
		SIGINT, SIGQUIT, SIGHUP, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE,
		SIGUSR1, SIGUSR2,
	};
	sigset_t none;

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Out of dtrace's process group and session (see the top); it still ends
 * with dtrace: PR_SET_PDEATHSIG, checked against the parent's having died
 * before it was set (the watchdog then has another parent).  setsid()
 * keeps both the parent and the death signal. */
static bool wd_detach(pid_t parent)
{
	return prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == parent &&
	       setsid() >= 0;
}

static void __attribute__((noreturn)) wd_main(wd_t *w, int fan_fd, int sock)
{
	if (!wd_detach(w->parent) || !wd_descriptors(fan_fd, sock))
		_exit(1);
	w->fan_fd = WD_FAN;
	w->sock = WD_SOCK;
	prctl(PR_SET_NAME, "dtrace-gatewd");
	wd_signals();
	wd_priority();
	wd_loop(w);
	_exit(0);
}

int dt_gatewd_start(int fan_fd, int *sock, pid_t *pid)
{
	int sv[2];
	wd_t *w = calloc(1, sizeof(*w));

	if (w != NULL)
		dt_htab_init(&w->cache, sizeof(wd_entry_t), cache_eq);
	if (w == NULL || dt_htab_reserve(&w->cache, WD_CACHE_MAX) != 0) {
		free(w);
		return -ENOMEM;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		int err = -errno;
		dt_htab_fini(&w->cache);
		free(w);
		return err;
	}
	w->parent = getpid();
	w->arm_fd = -1;
	dt_procfs_mntns(0, &w->mntns);	/* else all zero: all look foreign */
	for (int i = 0; i < WD_PENDING_MAX; i++)
		w->pending[i].fd = -1;

	pid_t child = fork();
	if (child == 0)
		wd_main(w, fan_fd, sv[1]);
	int err = child < 0 ? -errno : 0;
	close(sv[1]);
	dt_htab_fini(&w->cache);
	free(w);
	if (err < 0) {
		close(sv[0]);
		return err;
	}
	*sock = sv[0];
	*pid = child;
	return 0;
}
