/*
 * dt_gate.c: the exec gate.
 *
 * Why.  Uprobes belong to files (inodes): once placed on a file, the kernel
 * installs them in every process that maps it before that process runs an
 * instruction of it.  A "provider*" description covers a file that no
 * process had mapped when tracing began only once dtrace has read its notes
 * and placed uprobes on it; the exec watch (dt_exec.c) does that after the
 * exec, some milliseconds late, and misses what the program fires first.
 * The gate does it before: the fanotify permission event FAN_OPEN_EXEC_PERM
 * holds execve() while the kernel opens the file for execution, until this
 * process answers.  Nothing is signalled or stopped: to the process and its
 * parent, the exec merely took a little longer.
 *
 * How.  A thread of its own (the gate thread) reads the events.  For each
 * exec it asks dt_ldso which files the new program maps at start (the
 * executable, its interpreter and the DT_NEEDED closure) and which of those
 * carry a .note.stapsdt section.  Files with notes that no request has shown
 * yet go to the trace loop as one request (the slot below), which hands them
 * to the providers; the gate thread answers FAN_ALLOW when the loop is done,
 * or after GATE_HOLD_MAX_MS whatever happens, so that a busy trace loop
 * delays an exec by a bounded time and never blocks it.  Every other exec is
 * let through at once.  What was learnt is remembered per file (dev, inode,
 * mtime): each file is handed over once per session, and an executable whose
 * files were all seen passes after one fstat(); one that the loader does not
 * start (the loader itself, opened by every dynamic exec; static programs;
 * scripts) gets an ignore mark, and its execs no event at all (the kernel
 * drops the mark when the file is modified).  A covered exec is marked in a
 * BPF map before it goes on, so that the exec watch leaves out the events it
 * no longer needs (dt_gate_arm(), dt_exec.c "Gated execs").
 *
 * Requests (the slot).  One request at a time, under lock:
 *   FREE   -> POSTED  gate thread: request written, wake_fd signalled;
 *   POSTED -> TAKEN   trace loop: serving it, outside the lock;
 *   TAKEN  -> DONE    trace loop: served;
 *   DONE   -> FREE    gate thread: frees the request, answers.
 * When the gate thread gives up waiting, a POSTED request is taken back and
 * freed; a TAKEN one is marked abandoned, and the trace loop frees it when
 * it finishes (TAKEN -> FREE).
 *
 * Not covered.  Execs by dtrace's own children (the system() action, whose
 * child the trace loop waits for) pass at once.  Libraries dlopen()ed later
 * are not opened for execution and are left to the exec watch, as are
 * filesystems mounted after the gate opened and those of other mount
 * namespaces.  LD_LIBRARY_PATH is read from the process that calls exec,
 * which is where the new program's usually comes from.  If dtrace is stopped
 * by SIGSTOP or a debugger, execs of files not yet seen wait until it runs
 * again (the waits are killable); Ctrl-Z (SIGTSTP) is handled: the gate
 * closes before dtrace stops and opens again when it continues.
 *
 * The fanotify descriptor belongs to the gate thread, which closes it when
 * it ends for any reason: the kernel then lets every pending exec through.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "dt_impl.h"
#include "dt_gate.h"
#include "dt_ldso.h"

#define GATE_HOLD_MAX_MS	500	/* longest an exec waits for the loop */
#define GATE_ENVIRON_MAX	(256 * 1024)

/* What the gate knows of a file (flags of gate_file_t). */
#define GF_USED		0x1	/* the hash slot holds a file */
#define GF_PLAIN	0x2	/* no USDT notes, or not ELF */
#define GF_SEEN		0x4	/* notes, handed to the providers */
#define GF_SETTLED	0x8	/* an executable all of whose start-up files
				 * are PLAIN or SEEN */
#define GF_DYNAMIC	0x10	/* an executable the dynamic loader starts */

typedef struct gate_key {
	dev_t dev;
	ino_t ino;
	int64_t mtime_ns;	/* a rewritten file is a new one */
} gate_key_t;

typedef struct gate_file {
	gate_key_t key;
	unsigned flags;
} gate_file_t;

enum { SLOT_FREE, SLOT_POSTED, SLOT_TAKEN, SLOT_DONE };

struct dt_gate {
	int fan_fd;		/* the group; the gate thread's (see above) */
	int wake_fd;		/* eventfd: a request waits for the loop */
	int stop_fd;		/* eventfd: the thread must end */
	int tstp_fd;		/* eventfd: SIGTSTP arrived */
	int cont_fd;		/* eventfd: SIGCONT arrived */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* the slot, under lock */
	int slot;
	bool abandoned;
	bool closing;
	int req_pid;
	char **req_paths;
	int req_n;
	/* the gate thread's own */
	dt_ldso_t *ldso;
	char **sections;	/* ELF sections that make a file matter (the
				   gated providers' gate_sections), NULL-ended */
	gate_file_t *files;	/* open addressing, power-of-two size */
	size_t nfiles, files_cap;
	/* where to mark the execs the gate covered, and how (dt_gate_arm) */
	int arm_fd, arm_value;
	/* statistics, the gate thread's */
	uint64_t nexec, nheld, ntimeouts, hold_sum_ns, hold_max_ns;
};

/* --- what the gate knows of files --- */

static gate_key_t key_of(const struct stat *sb)
{
	return (gate_key_t){
		.dev = sb->st_dev, .ino = sb->st_ino,
		.mtime_ns = (int64_t)sb->st_mtim.tv_sec * 1000000000 +
			    sb->st_mtim.tv_nsec,
	};
}

static bool key_eq(const gate_key_t *a, const gate_key_t *b)
{
	return a->dev == b->dev && a->ino == b->ino &&
	       a->mtime_ns == b->mtime_ns;
}

static size_t key_hash(const gate_key_t *k)
{
	uint64_t h = (uint64_t)k->ino * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)k->dev + (uint64_t)k->mtime_ns * 0xff51afd7ed558ccdull;
	return (size_t)(h ^ (h >> 29));
}

static gate_file_t *files_slot(gate_file_t *v, size_t cap,
			       const gate_key_t *k)
{
	size_t i = key_hash(k) & (cap - 1);

	while ((v[i].flags & GF_USED) && !key_eq(&v[i].key, k))
		i = (i + 1) & (cap - 1);
	return &v[i];
}

static bool files_grow(dt_gate_t *g)
{
	size_t cap = g->files_cap ? g->files_cap * 2 : 256;
	gate_file_t *v = calloc(cap, sizeof(*v));

	if (v == NULL)
		return false;
	for (size_t i = 0; i < g->files_cap; i++)
		if (g->files[i].flags & GF_USED)
			*files_slot(v, cap, &g->files[i].key) = g->files[i];
	free(g->files);
	g->files = v;
	g->files_cap = cap;
	return true;
}

/* The entry of a file, added if new; NULL when out of memory.  Valid until
 * the next call. */
static gate_file_t *file_entry(dt_gate_t *g, const gate_key_t *k)
{
	if ((g->nfiles + 1) * 2 > g->files_cap && !files_grow(g))
		return NULL;
	gate_file_t *f = files_slot(g->files, g->files_cap, k);
	if (!(f->flags & GF_USED)) {
		*f = (gate_file_t){ .key = *k, .flags = GF_USED };
		g->nfiles++;
	}
	return f;
}

/* Whether the file open as fd has one of the sections the providers asked
 * for: 1, 0 or -errno. */
static int file_has_sections(const dt_gate_t *g, int fd)
{
	int rc = 0;

	for (char **sec = g->sections; rc == 0 && *sec; sec++)
		rc = dt_ldso_has_section(fd, *sec);
	return rc;
}

/* Whether the file at path (or open as fd, when fd >= 0) has a section the
 * providers asked for (USDT notes) and has not been shown to them; its key
 * in *key. */
static bool file_is_new_noted(dt_gate_t *g, const char *path, int fd,
			      gate_key_t *key)
{
	struct stat sb;

	if ((fd >= 0 ? fstat(fd, &sb) : stat(path, &sb)) != 0 ||
	    !S_ISREG(sb.st_mode))
		return false;
	*key = key_of(&sb);
	gate_file_t *f = file_entry(g, key);
	if (f == NULL || (f->flags & (GF_PLAIN | GF_SEEN)))
		return false;

	int own = fd < 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	int noted = file_has_sections(g, fd >= 0 ? fd : own);
	if (own >= 0)
		close(own);
	if (noted == 1)
		return true;
	if ((f = file_entry(g, key)) != NULL)
		f->flags |= GF_PLAIN;
	return false;
}

static void files_mark(dt_gate_t *g, const gate_key_t *k, unsigned flag)
{
	gate_file_t *f = file_entry(g, k);

	if (f != NULL)
		f->flags |= flag;
}

/* --- the process that execs --- */

/* Whether pid is a child of dtrace (the system() action). */
static bool is_own_child(int pid)
{
	char name[64], buf[512];
	snprintf(name, sizeof(name), "/proc/%d/stat", pid);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold anything, even ')'. */
	const char *p = strrchr(buf, ')');
	int ppid;
	return p != NULL && sscanf(p + 1, " %*c %d", &ppid) == 1 &&
	       ppid == (int)getpid();
}

/* LD_LIBRARY_PATH of pid into buf ("" when unset or unreadable). */
static void proc_libpath(int pid, char *buf, size_t len)
{
	static const char var[] = "LD_LIBRARY_PATH=";
	char name[64];

	buf[0] = '\0';
	snprintf(name, sizeof(name), "/proc/%d/environ", pid);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char *env = malloc(GATE_ENVIRON_MAX);
	ssize_t n = env ? read(fd, env, GATE_ENVIRON_MAX - 1) : -1;
	close(fd);
	for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(env + i) + 1) {
		env[n] = '\0';
		if (strncmp(env + i, var, sizeof(var) - 1) == 0) {
			snprintf(buf, len, "%s", env + i + sizeof(var) - 1);
			break;
		}
	}
	free(env);
}

/* --- requests to the trace loop --- */

static void free_paths(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool wait_until(dt_gate_t *g, const struct timespec *deadline)
{
	return pthread_cond_timedwait(&g->cond, &g->lock, deadline) !=
	       ETIMEDOUT;
}

/* Post paths (taken over) for pid and wait for the trace loop to serve
 * them.  true when it did in time. */
static bool hand_over(dt_gate_t *g, int pid, char **paths, int n)
{
	struct timespec deadline;
	bool in_time = true;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_nsec += (GATE_HOLD_MAX_MS % 1000) * 1000000L;
	deadline.tv_sec += GATE_HOLD_MAX_MS / 1000 +
			   deadline.tv_nsec / 1000000000L;
	deadline.tv_nsec %= 1000000000L;

	pthread_mutex_lock(&g->lock);
	while (g->slot != SLOT_FREE && !g->closing && in_time)
		in_time = wait_until(g, &deadline);
	if (g->slot != SLOT_FREE || g->closing) {
		pthread_mutex_unlock(&g->lock);
		free_paths(paths, n);
		return false;
	}
	g->slot = SLOT_POSTED;
	g->req_pid = pid;
	g->req_paths = paths;
	g->req_n = n;
	uint64_t one = 1;
	if (write(g->wake_fd, &one, sizeof(one)) < 0)
		in_time = false;	/* cannot happen: the counter is small */
	while ((g->slot == SLOT_POSTED || g->slot == SLOT_TAKEN) &&
	       !g->closing && in_time)
		in_time = wait_until(g, &deadline);

	bool served = g->slot == SLOT_DONE;
	if (g->slot == SLOT_TAKEN) {
		g->abandoned = true;	/* the loop frees it */
	} else {
		free_paths(g->req_paths, g->req_n);
		g->slot = SLOT_FREE;
	}
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return served;
}

int dt_gate_serve(dt_gate_t *g, dtrace_hdl_t *dtp, dt_gate_serve_f serve)
{
	uint64_t count;

	if (read(g->wake_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
		return 0;
	pthread_mutex_lock(&g->lock);
	if (g->slot != SLOT_POSTED) {
		pthread_mutex_unlock(&g->lock);
		return 0;
	}
	g->slot = SLOT_TAKEN;
	int pid = g->req_pid, n = g->req_n;
	const char *const *paths = (const char *const *)g->req_paths;
	pthread_mutex_unlock(&g->lock);

	int rc = serve(dtp, pid, paths, n);

	pthread_mutex_lock(&g->lock);
	if (g->abandoned) {
		free_paths(g->req_paths, g->req_n);
		g->abandoned = false;
		g->slot = SLOT_FREE;
	} else {
		g->slot = SLOT_DONE;
	}
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return rc;
}

/* --- one exec --- */

/* The start-up files of the program open as fd with notes not yet shown,
 * as real paths in *out, their keys in *keys.  Returns how many (0 when
 * nothing is to be done, the executable then settled). */
static int new_noted_files(dt_gate_t *g, int fd, int pid, char ***out,
			   gate_key_t **keys, bool *dynamic)
{
	char path[PATH_MAX], self[64], libpath[4096];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	ssize_t len = readlink(self, path, sizeof(path) - 1);
	if (len <= 0)
		return 0;
	path[len] = '\0';
	proc_libpath(pid, libpath, sizeof(libpath));

	char **files;
	int n = dt_ldso_startup_files(g->ldso, fd, path,
				      libpath[0] ? libpath : NULL, &files);
	if (n <= 0)
		return 0;
	*dynamic = n > 1;	/* an interpreter, libraries */
	*out = calloc((size_t)n, sizeof(**out));
	*keys = calloc((size_t)n, sizeof(**keys));
	int nnew = 0;
	for (int i = 0; i < n && *out && *keys; i++) {
		gate_key_t k;
		if (!file_is_new_noted(g, files[i], i == 0 ? fd : -1, &k))
			continue;
		char *real = realpath(i == 0 ? path : files[i], NULL);
		if (real == NULL)
			continue;
		(*out)[nnew] = real;
		(*keys)[nnew++] = k;
	}
	dt_ldso_free_list(files, n);
	return nnew;
}

/* The exec of pid is covered: mark it for the exec watch (dt_exec.c,
 * "Gated execs"), when asked to. */
static void gate_mark_covered(dt_gate_t *g, int pid)
{
	int fd = __atomic_load_n(&g->arm_fd, __ATOMIC_ACQUIRE);
	uint32_t key = (uint32_t)pid, val = (uint32_t)g->arm_value;

	if (fd >= 0)
		bpf_map_update_elem(fd, &key, &val, BPF_ANY);
}

/* The file open as fd needs no event any more: an executable the loader
 * does not start (a static program, a script, the loader itself, which
 * every dynamic exec opens too) whose files were all seen.  The kernel
 * drops the mark when the file is modified, which brings the events back. */
static void gate_ignore(dt_gate_t *g, int fd)
{
	if (fanotify_mark(g->fan_fd, FAN_MARK_ADD | FAN_MARK_IGNORED_MASK,
			  FAN_OPEN_EXEC_PERM, fd, NULL) < 0)
		return;		/* then its events keep coming: harmless */
}

static void gate_exec(dt_gate_t *g, int fd, int pid)
{
	struct stat sb;

	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
		return;
	gate_key_t exe = key_of(&sb);
	gate_file_t *f = file_entry(g, &exe);
	if (f == NULL)
		return;
	if (f->flags & GF_SETTLED) {
		if (f->flags & GF_DYNAMIC)
			gate_mark_covered(g, pid);
		else
			gate_ignore(g, fd);	/* the group was opened again */
		return;
	}

	char **paths = NULL;
	gate_key_t *keys = NULL;
	bool dynamic = false;
	int n = new_noted_files(g, fd, pid, &paths, &keys, &dynamic);
	bool served = true;
	if (n > 0 && is_own_child(pid)) {
		/* the trace loop waits for it: nothing is placed now */
		free_paths(paths, n);
		paths = NULL;
		n = 0;
		served = false;
	}
	if (n > 0) {
		uint64_t t0 = dt_now_ns();
		served = hand_over(g, pid, paths, n);	/* takes paths */
		uint64_t held = dt_now_ns() - t0;
		g->nheld++;
		g->hold_sum_ns += held;
		if (held > g->hold_max_ns)
			g->hold_max_ns = held;
		if (!served)
			g->ntimeouts++;
		for (int i = 0; served && i < n; i++)
			files_mark(g, &keys[i], GF_SEEN);
		if (getenv("DTRACE_EXEC_DEBUG") != NULL)
			fprintf(stderr, "dtrace: exec gate: pid %d: %d files "
				"with notes, held %llu us%s\n", pid, n,
				(unsigned long long)held / 1000,
				served ? "" : " (not served in time)");
	} else {
		free(paths);
	}
	free(keys);
	if (!served)
		return;
	files_mark(g, &exe, GF_SETTLED | (dynamic ? GF_DYNAMIC : 0));
	if (dynamic)
		gate_mark_covered(g, pid);
	else
		gate_ignore(g, fd);
}

static void gate_answer(int fan_fd, int fd)
{
	struct fanotify_response r = { .fd = fd, .response = FAN_ALLOW };

	/* Only fails when the group is going away, which allows it too. */
	if (write(fan_fd, &r, sizeof(r)) < 0)
		return;
}

static void gate_events(dt_gate_t *g, const char *buf, ssize_t len)
{
	const struct fanotify_event_metadata *md =
		(const struct fanotify_event_metadata *)buf;

	for (; FAN_EVENT_OK(md, len); md = FAN_EVENT_NEXT(md, len)) {
		if (md->fd < 0)
			continue;
		if ((md->mask & FAN_OPEN_EXEC_PERM) &&
		    md->vers == FANOTIFY_METADATA_VERSION) {
			g->nexec++;
			gate_exec(g, md->fd, md->pid);
		}
		if (md->mask & FAN_OPEN_EXEC_PERM)
			gate_answer(g->fan_fd, md->fd);
		close(md->fd);
	}
}

/* --- the group --- */

/* Filesystems that hold no programs. */
static bool fs_is_pseudo(const char *type)
{
	static const char *const pseudo[] = {
		"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue",
		"debugfs", "tracefs", "bpf", "securityfs", "pstore",
		"hugetlbfs", "configfs", "fusectl", "binfmt_misc", "autofs",
		"efivarfs", "rpc_pipefs", "nsfs", "devtmpfs",
	};
	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (strcmp(type, pseudo[i]) == 0)
			return true;
	return false;
}

/* mountinfo writes ' ', '\t', '\n' and '\\' as octal escapes. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* One line of /proc/self/mountinfo: mark its filesystem unless it is a
 * pseudo filesystem or mounted noexec.  1 when marked. */
static int mark_mount(int fan_fd, char *line)
{
	char mnt[PATH_MAX], opts[256], type[64];
	const char *sep = strstr(line, " - ");

	if (sep == NULL ||
	    sscanf(line, "%*d %*d %*s %*s %4095s %255s", mnt, opts) != 2 ||
	    sscanf(sep + 3, "%63s", type) != 1)
		return 0;
	if (fs_is_pseudo(type) || strstr(opts, "noexec") != NULL)
		return 0;
	unescape(mnt);
	const uint64_t mask = FAN_OPEN_EXEC_PERM;
	if (fanotify_mark(fan_fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, mask,
			  AT_FDCWD, mnt) == 0 ||
	    fanotify_mark(fan_fd, FAN_MARK_ADD | FAN_MARK_MOUNT, mask,
			  AT_FDCWD, mnt) == 0)
		return 1;
	return 0;
}

static int mark_filesystems(int fan_fd)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int marked = 0;

	if (f == NULL)
		return -errno;
	while (getline(&line, &cap, f) > 0)
		marked += mark_mount(fan_fd, line);
	free(line);
	fclose(f);
	return marked;
}

/* A new group with every filesystem marked; -errno. */
static int group_open(void)
{
	int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK,
			       O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int marked = mark_filesystems(fd);
	if (marked <= 0) {
		close(fd);
		return marked < 0 ? marked : -ENOENT;
	}
	return fd;
}

/* --- Ctrl-Z --- */

/* The eventfds the handlers signal: SIGTSTP arrived, SIGCONT arrived. */
static volatile sig_atomic_t tstp_fd = -1, cont_fd = -1;

static void poke(int fd)
{
	uint64_t one = 1;
	int saved = errno;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0)
		errno = saved;
	errno = saved;
}

static void on_tstp(int sig)
{
	(void)sig;
	poke(tstp_fd);
}

static void on_cont(int sig)
{
	(void)sig;
	poke(cont_fd);
}

static void drain(int fd)
{
	uint64_t count;

	while (read(fd, &count, sizeof(count)) == sizeof(count))
		;
}

/* SIGTSTP arrived: let held execs go and stop; open again once continued.
 * The stop takes effect when some thread of dtrace next leaves the kernel,
 * not necessarily before kill() returns here, so the group is opened again
 * only after SIGCONT came (or never, when the gate is closed meanwhile). */
static void gate_pause(dt_gate_t *g)
{
	/* This thread is between events: no request is in flight. */
	drain(g->tstp_fd);
	drain(g->cont_fd);
	if (g->fan_fd >= 0)
		close(g->fan_fd);
	g->fan_fd = -1;
	kill(getpid(), SIGSTOP);

	struct pollfd pfd[2] = {
		{ .fd = g->stop_fd, .events = POLLIN },
		{ .fd = g->cont_fd, .events = POLLIN },
	};
	while (poll(pfd, 2, -1) < 0 && errno == EINTR)
		;
	if (pfd[0].revents)
		return;		/* closing: the thread ends */
	drain(g->cont_fd);
	int fd = group_open();
	g->fan_fd = fd >= 0 ? fd : -1;	/* else: the exec watch alone */
}

/* Handle SIGTSTP (and so SIGCONT) unless someone else does. */
static void install_tstp(dt_gate_t *g)
{
	struct sigaction old, sa;

	if (sigaction(SIGTSTP, NULL, &old) != 0 || old.sa_handler != SIG_DFL)
		return;		/* ignored or handled by someone else */
	if (sigaction(SIGCONT, NULL, &old) != 0 || old.sa_handler != SIG_DFL)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	tstp_fd = g->tstp_fd;
	cont_fd = g->cont_fd;
	sa.sa_handler = on_cont;
	sigaction(SIGCONT, &sa, NULL);
	sa.sa_handler = on_tstp;
	sigaction(SIGTSTP, &sa, NULL);
}

static void restore_tstp(void)
{
	if (tstp_fd < 0)
		return;
	signal(SIGTSTP, SIG_DFL);
	signal(SIGCONT, SIG_DFL);
	tstp_fd = cont_fd = -1;
}

/* --- the thread --- */

static void *gate_main(void *arg)
{
	dt_gate_t *g = arg;
	char buf[8192]
		__attribute__((aligned(__alignof__(struct fanotify_event_metadata))));

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = g->stop_fd, .events = POLLIN },
			{ .fd = g->tstp_fd, .events = POLLIN },
			{ .fd = g->fan_fd, .events = POLLIN },
		};
		if (poll(pfd, g->fan_fd >= 0 ? 3 : 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents)
			break;
		if (pfd[1].revents) {
			gate_pause(g);
			continue;
		}
		ssize_t len = read(g->fan_fd, buf, sizeof(buf));
		if (len < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (len <= 0)
			break;
		gate_events(g, buf, len);
	}
	if (g->fan_fd >= 0)
		close(g->fan_fd);	/* lets whatever is pending through */
	g->fan_fd = -1;
	return NULL;
}

/* --- the gate's life --- */

static void gate_free(dt_gate_t *g)
{
	if (g->wake_fd >= 0)
		close(g->wake_fd);
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	if (g->tstp_fd >= 0)
		close(g->tstp_fd);
	if (g->cont_fd >= 0)
		close(g->cont_fd);
	if (g->fan_fd >= 0)
		close(g->fan_fd);
	for (char **sec = g->sections; sec && *sec; sec++)
		free(*sec);
	free(g->sections);
	if (g->ldso)
		dt_ldso_close(g->ldso);
	free(g->files);
	pthread_mutex_destroy(&g->lock);
	pthread_cond_destroy(&g->cond);
	free(g);
}

static bool gate_start_thread(dt_gate_t *g)
{
	sigset_t all, old;

	/* Signals are the trace loop's business. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&g->thread, NULL, gate_main, g);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc == 0;
}

/* A copy of the NULL-terminated list v, or NULL. */
static char **strv_dup(const char *const *v)
{
	size_t n = 0;

	while (v[n] != NULL)
		n++;
	char **c = calloc(n + 1, sizeof(*c));
	for (size_t i = 0; c != NULL && i < n; i++) {
		if ((c[i] = strdup(v[i])) == NULL) {
			while (i > 0)
				free(c[--i]);
			free(c);
			return NULL;
		}
	}
	return c;
}

dt_gate_t *dt_gate_open(const char *const *sections, char *msg,
			size_t msglen)
{
	dt_gate_t *g = calloc(1, sizeof(*g));

	if (g == NULL || (g->sections = strv_dup(sections)) == NULL) {
		free(g);
		snprintf(msg, msglen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->tstp_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->cont_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->ldso = dt_ldso_open();
	g->fan_fd = -1;
	g->arm_fd = -1;
	if (g->wake_fd < 0 || g->stop_fd < 0 || g->tstp_fd < 0 ||
	    g->cont_fd < 0 || g->ldso == NULL) {
		snprintf(msg, msglen, "%s", strerror(errno ? errno : ENOMEM));
		gate_free(g);
		return NULL;
	}
	/* Ctrl-Z must never stop dtrace while its group holds execs: the
	 * handler is in place before the group exists. */
	install_tstp(g);
	g->fan_fd = group_open();
	if (g->fan_fd < 0) {
		snprintf(msg, msglen, "fanotify: %s", strerror(-g->fan_fd));
		g->fan_fd = -1;
		restore_tstp();
		gate_free(g);
		return NULL;
	}
	if (!gate_start_thread(g)) {
		snprintf(msg, msglen, "cannot start its thread");
		restore_tstp();
		gate_free(g);
		return NULL;
	}
	return g;
}

void dt_gate_arm(dt_gate_t *g, int map_fd, int value)
{
	g->arm_value = value;
	__atomic_store_n(&g->arm_fd, map_fd, __ATOMIC_RELEASE);
}

int dt_gate_fd(const dt_gate_t *g)
{
	return g->wake_fd;
}

void dt_gate_close(dt_gate_t *g, int stats)
{
	uint64_t one = 1;

	if (g == NULL)
		return;
	restore_tstp();
	pthread_mutex_lock(&g->lock);
	g->closing = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	if (write(g->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(g->thread, NULL);
	else
		pthread_detach(g->thread);	/* cannot happen */
	if (stats)
		fprintf(stderr, "dtrace: exec gate: %llu execs, %llu held, "
			"hold avg %llu us max %llu us, %llu not served in "
			"time\n", (unsigned long long)g->nexec,
			(unsigned long long)g->nheld,
			(unsigned long long)(g->nheld ? g->hold_sum_ns /
					     g->nheld / 1000 : 0),
			(unsigned long long)g->hold_max_ns / 1000,
			(unsigned long long)g->ntimeouts);
	gate_free(g);	/* the thread left the slot free */
}
