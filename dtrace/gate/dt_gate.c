/* SPDX-License-Identifier: MIT */
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
 * holds execve() while the kernel opens the file for execution, until it
 * is answered.  Nothing is signalled or stopped: to the process and its
 * parent, the exec merely took a little longer.
 *
 * How.  The events are read by a process of its own, the watchdog
 * (dt_gatewd.c), which answers at once for executables known not to matter
 * and hands the others to a thread of dtrace (the gate thread) with a
 * deadline: GATE_HOLD_MAX_MS after the event, the watchdog lets the exec go
 * whether or not dtrace answered, so that no state of dtrace (stopped,
 * starved of CPU, busy) holds an exec longer.  For each exec handed over,
 * the gate thread asks dt_ldso which files the new program maps at start (the
 * executable, its interpreter and the DT_NEEDED closure) and which of those
 * carry one of the sections the plugins named (ops->gate_sections: USDT
 * notes for usdt).  Such files that no request has shown yet go to the
 * trace loop as one request (the slot below), which hands them
 * to the providers; the gate thread answers the watchdog when the loop is
 * done, or at the deadline.  Every other exec is answered at once.  What
 * was learnt is remembered per file (dev, inode, mtime), for
 * GATE_FILES_MAX files (then the table starts over: a machine that makes
 * programs all day costs it no more): each file is handed over once, and
 * an executable whose files were all seen is settled: the watchdog lets
 * its later execs go after one fstat(); one that the loader does not start (the loader itself, opened by every
 * dynamic exec; static programs; scripts) gets an ignore mark, and its
 * execs no event at all (the kernel drops the mark when the file is
 * modified).  A covered exec is marked in a BPF map before it goes on, so
 * that the exec watch leaves out the events it no longer needs
 * (dt_gate_arm(), dt_exec.c "Gated execs"); but not the exec of a program
 * one of whose start-up files has notes (WD_WATCH): the exec watch's
 * event is what tells the providers of each process that runs it, so
 * that its probes are named with its pid.  An exec the watchdog let go
 * without dtrace's answer comes as well, marked answered: its files are
 * handed over all the same, nobody waiting, and when the providers placed
 * probes for it, the program ran before them and is named on stderr
 * (dt_gate_serve()); the same goes for an exec whose request the trace loop
 * did not serve in time.
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
 * Other mount namespaces.  A namespace made later (unshare -m) may mount
 * filesystems the gate never marked (a private tmpfs).  A dynamic program
 * there still makes the kernel open the loader, on a marked filesystem:
 * that file (dtrace's own loader) is answered WD_INTERP, its events keep
 * coming, and the watchdog lets them go at once but for a process of
 * another mount namespace, which it holds for dtrace (req.foreign).  The
 * process waits in execve() with its old memory: dtrace reads the path it
 * gave from /proc/PID/syscall and /proc/PID/mem and hands the program
 * over as /proc/PID/root/PATH (gate_foreign()); files are known by device
 * and inode, so the uprobes placed that way are the file's.
 *
 * Not covered.  Execs by dtrace's own children (the system() action, whose
 * child the trace loop waits for) pass at once.  Libraries dlopen()ed later
 * are not opened for execution and are left to the exec watch, as are
 * filesystems mounted after the gate opened in dtrace's namespace, static
 * programs of other namespaces (no loader), and programs exec'ed there
 * through a descriptor (fexecve).  LD_LIBRARY_PATH is read from the process that calls exec,
 * which is where the new program's usually comes from.  While dtrace is
 * stopped (SIGSTOP, Ctrl-Z, its job stopped, a debugger) or too starved to
 * answer in time, execs of files not yet seen go on unheld (dt_gatewd.c).
 *
 * The fanotify descriptor belongs to the watchdog, which ends with dtrace:
 * the kernel then lets every pending exec through.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_gate.h"
#include "dt_gatewd.h"
#include "dt_ldso.h"
#include "dt_procfs.h"
#include "dt_rtld.h"
#include "dt_untrusted.h"

#define GATE_ENVIRON_MAX	(256 * 1024)
/* Files the gate remembers: when as many are, it starts over (a file it
 * forgot is looked at again, and shown to the providers again, which know
 * it by identity): 600 KB at most, however many programs are made. */
#define GATE_FILES_MAX		8192

/* What the gate knows of a file (flags of gate_file_t). */
#define GF_PLAIN	0x2	/* no USDT notes, or not ELF */
#define GF_SEEN		0x4	/* notes, handed to the providers */
#define GF_SETTLED	0x8	/* an executable all of whose start-up files
				 * are PLAIN or SEEN */
#define GF_DYNAMIC	0x10	/* an executable the dynamic loader starts */
#define GF_NOTED	0x20	/* an executable a start-up file of which has
				 * notes: its execs keep their exec watch
				 * event (WD_WATCH) */

typedef struct gate_file {
	gate_key_t key;
	unsigned flags;
} gate_file_t;

enum { SLOT_FREE, SLOT_POSTED, SLOT_TAKEN, SLOT_DONE };

struct dt_gate {
	int sock;		/* to the watchdog (dt_gatewd.h) */
	pid_t wd_pid;		/* the watchdog */
	int wake_fd;		/* eventfd: a request waits for the loop */
	int stop_fd;		/* eventfd: the thread must end */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* on CLOCK_MONOTONIC */
	/* the slot, under lock */
	int slot;
	bool abandoned;
	bool closing;
	int req_pid;
	bool req_late;		/* the exec went on: nobody waits */
	char **req_paths;
	int req_n;
	/* the gate thread's own */
	dt_ldso_t *ldso;
	gate_key_t interp;	/* the loader (dtrace's own), see WD_INTERP */
	bool have_interp;
	char **sections;	/* ELF sections that make a file matter (the
				   gated providers' gate_sections), NULL-ended */
	dt_htab_t files;	/* of gate_file_t, by key */
	/* statistics, the gate thread's */
	uint64_t nheld, ntimeouts, hold_sum_ns, hold_max_ns;
	uint64_t nreq;		/* execs the watchdog waited on us for */
	uint64_t to_run_sum_ns;	/* from its event to the thread reading it */
	uint64_t decide_sum_ns;	/* from there to the answer */
};

/* --- what the gate knows of files --- */

static bool file_eq(const void *elem, const void *key)
{
	return gate_key_eq(&((const gate_file_t *)elem)->key, key);
}

/* The entry of a file, added if new; NULL when out of memory.  Valid until
 * the next call. */
static gate_file_t *file_entry(dt_gate_t *g, const gate_key_t *k)
{
	bool added;

	if (dt_htab_count(&g->files) >= GATE_FILES_MAX)
		dt_htab_clear(&g->files);	/* start over */
	gate_file_t *f = dt_htab_insert(&g->files, gate_key_hash(k), k, &added);
	if (f != NULL && added)
		f->key = *k;
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
			      gate_key_t *key, bool *noted_out)
{
	struct stat sb;

	/* a stat() tells a file already known, at the cost of one call */
	if ((fd >= 0 ? fstat(fd, &sb) : stat(path, &sb)) != 0 ||
	    !S_ISREG(sb.st_mode))
		return false;
	*key = gate_key_of(&sb);
	gate_file_t *f = file_entry(g, key);
	if (f != NULL && (f->flags & GF_SEEN))
		*noted_out = true;	/* shown before */
	if (f == NULL || (f->flags & (GF_PLAIN | GF_SEEN)))
		return false;

	/* path comes from the loader's search in the exec'ing process's
	 * files: what stat() saw may be a FIFO by now; the open never
	 * blocks and is of that file or fails (dt_untrusted.h) */
	int own = fd < 0 ? dt_open_untrusted_id(path, sb.st_dev, sb.st_ino,
						NULL) : -1;
	/* Out of descriptors or memory, the file is not known to be plain:
	 * it is handed over all the same, and a provider that cannot read
	 * it says so by name. */
	if (fd < 0 && (own == -EMFILE || own == -ENFILE || own == -ENOMEM))
		return *noted_out = true;
	if (fd < 0 && own < 0)
		return false;
	int noted = file_has_sections(g, fd >= 0 ? fd : own);
	if (own >= 0)
		close(own);
	if (noted == 1 || noted == -ENOMEM)
		return *noted_out = true;
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
	dt_procfs_stat_t st;

	return dt_procfs_stat(pid, &st) == 0 && st.ppid == (int)getpid();
}

/* LD_LIBRARY_PATH of pid into buf ("" when unset or unreadable). */
static void proc_libpath(int pid, char *buf, size_t len)
{
	char *env = malloc(GATE_ENVIRON_MAX);
	const char *v = env ? dt_procfs_getenv(pid, "LD_LIBRARY_PATH", env,
					       GATE_ENVIRON_MAX) : NULL;

	snprintf(buf, len, "%s", v ? v : "");
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
 * them, until deadline_ns (CLOCK_MONOTONIC).  true when it did in time. */
static bool hand_over(dt_gate_t *g, int pid, char **paths, int n,
		      bool late, uint64_t deadline_ns)
{
	struct timespec deadline = {
		.tv_sec = (time_t)(deadline_ns / 1000000000u),
		.tv_nsec = (long)(deadline_ns % 1000000000u),
	};
	bool in_time = true;

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
	g->req_late = late;
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

/* The program pid runs (which mapped paths) went on before the providers
 * placed its probes: said by name, as what it fired first was not seen. */
static void gate_report_unheld(int pid, const char *const *paths)
{
	dt_warn(NULL, "pid %d (%s) started before its probes were placed: "
		"dtrace was stopped or could not answer the exec gate within "
		"%d ms; what it fired first was not seen", pid, paths[0],
		GATE_HOLD_MAX_MS);
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
	if (rc > 0 && (g->req_late || g->abandoned))
		gate_report_unheld(pid, paths);
	if (g->abandoned) {
		free_paths(g->req_paths, g->req_n);
		g->abandoned = false;
		g->slot = SLOT_FREE;
	} else {
		g->slot = SLOT_DONE;
	}
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return rc < 0 ? rc : 0;
}

/* --- one exec --- */

/* The start-up files of the program open as fd with notes not yet shown,
 * as real paths in *out (the program's as shown when not NULL), their keys
 * in *keys.  Returns how many (0 when nothing is to be done, the
 * executable then settled). */
static int new_noted_files(dt_gate_t *g, int fd, const char *shown, int pid,
			   char ***out, gate_key_t **keys, bool *dynamic,
			   bool *noted)
{
	char path[PATH_MAX], self[64], libpath[4096];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	ssize_t len = shown ? (ssize_t)strlen(shown) :
			      readlink(self, path, sizeof(path) - 1);
	if (len <= 0 || len >= (ssize_t)sizeof(path))
		return 0;
	if (shown)
		memcpy(path, shown, (size_t)len);
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
		if (!file_is_new_noted(g, files[i], i == 0 ? fd : -1, &k,
				       noted))
			continue;
		char *real = i == 0 && shown ? strdup(shown) :
			     realpath(i == 0 ? path : files[i], NULL);
		if (real == NULL)
			continue;
		(*out)[nnew] = real;
		(*keys)[nnew++] = k;
	}
	dt_ldso_free_list(files, n);
	return nnew;
}

/*
 * Hand the files of a held exec over; true when served in time.  A late
 * exec (the watchdog let it go: dtrace was stopped, or the bound passed)
 * is not held and is not counted as held: the watchdog counted it, and
 * however long the providers take to place its probes, nobody waits.
 */
static bool gate_hold(dt_gate_t *g, const gatewd_req_t *r, char **paths,
		      int n, bool late)
{
	uint64_t t0 = dt_now_ns();
	bool served = hand_over(g, r->pid, paths, n, late, late ?
				t0 + GATE_HOLD_MAX_MS * 1000000ull :
				r->deadline_ns);
	uint64_t held = dt_now_ns() - t0;

	if (!late) {
		g->nheld++;
		g->hold_sum_ns += held;
		if (held > g->hold_max_ns)
			g->hold_max_ns = held;
		if (!served)
			g->ntimeouts++;
	}
	if (getenv("DTRACE_EXEC_DEBUG") != NULL)
		fprintf(stderr, "dtrace: exec gate: pid %d: %d files with "
			"notes, held %llu us%s\n", r->pid, n,
			(unsigned long long)held / 1000,
			served ? "" : " (not served in time)");
	return served;
}

/* The start-up files of the program open as fd (shown as that path, when
 * not NULL) that carry notes not shown yet go to the providers.  Whether
 * that was done in time, or nothing was to be done. */
static bool gate_program(dt_gate_t *g, int fd, const char *shown,
			 const gatewd_req_t *r, bool *dynamic, bool *noted)
{
	char **paths = NULL;
	gate_key_t *keys = NULL;
	int n = new_noted_files(g, fd, shown, r->pid, &paths, &keys, dynamic,
				noted);
	bool served = true, late = r->answered ||
				   dt_now_ns() >= r->deadline_ns;
	if (n > 0 && is_own_child(r->pid)) {
		/* the trace loop waits for it: nothing is placed now */
		free_paths(paths, n);
		paths = NULL;
		n = 0;
		served = false;
	}
	if (n > 0) {
		/* takes paths; late, the providers still place the probes
		 * and say whether it mattered (dt_gate_serve) */
		served = gate_hold(g, r, paths, n, late);
		for (int i = 0; served && i < n; i++)
			files_mark(g, &keys[i], GF_SEEN);
	} else {
		free(paths);
	}
	free(keys);
	return served;
}

/* A string of pid's memory at addr, into buf; whether whole. */
static bool proc_read_string(int pid, uint64_t addr, char *buf, size_t len)
{
	char name[64];
	size_t got = 0;
	bool whole = false;

	snprintf(name, sizeof(name), "/proc/%d/mem", pid);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (!whole && got + 1 < len) {
		size_t chunk = 4096 - ((addr + got) & 4095);	/* to the page's end */
		if (chunk > len - 1 - got)
			chunk = len - 1 - got;
		ssize_t n = pread(fd, buf + got, chunk, (off_t)(addr + got));
		if (n <= 0)
			break;
		whole = memchr(buf + got, '\0', (size_t)n) != NULL;
		got += (size_t)n;
	}
	close(fd);
	buf[got < len ? got : len - 1] = '\0';
	return whole;
}

/* /proc/PID/syscall (name) into buf.  The watchdog may hand the exec over
 * before the process went to sleep waiting for the answer: until it does,
 * the file says "running", and is read again (for 50 ms at most). */
#define GATE_SYSCALL_TRIES	250
static bool proc_syscall(const char *name, char *buf, size_t len)
{
	for (int i = 0; i < GATE_SYSCALL_TRIES; i++) {
		int fd = open(name, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return false;
		buf[n] = '\0';
		if (strncmp(buf, "running", 7) != 0)
			return true;
		usleep(200);
	}
	return false;
}

/* The program pid is exec'ing, opened: pid waits in execve() (or in
 * execveat() from its working directory) for the loader, which the kernel
 * opens after the program; the path it gave is read from its memory and
 * reached through its own root or working directory, whatever its mount
 * namespace; put in out.  -1 when it cannot be told. */
static int exec_target_open(int pid, char *out, size_t len)
{
	char name[64], buf[256], arg[PATH_MAX];
	long nr;
	unsigned long long a0, a1;

	snprintf(name, sizeof(name), "/proc/%d/syscall", pid);
	if (!proc_syscall(name, buf, sizeof(buf)) ||
	    sscanf(buf, "%ld %llx %llx", &nr, &a0, &a1) != 3)
		return -1;
	uint64_t addr = nr == SYS_execve ? a0 :
			nr == SYS_execveat && (int)a0 == AT_FDCWD ? a1 : 0;
	if (addr == 0 || !proc_read_string(pid, addr, arg, sizeof(arg)) ||
	    arg[0] == '\0')
		return -1;
	if (!dt_procfs_path(pid, arg, out, len))
		return -1;
	/* the process's own path, which its owner may have swapped for a
	 * FIFO since the exec: never waits (dt_untrusted.h) */
	int fd = dt_open_untrusted(out, NULL);
	return fd < 0 ? -1 : fd;
}

/* The loader opened by a process of another mount namespace (WD_INTERP):
 * its program may lie on a filesystem the gate did not mark (mounted in
 * that namespace), which is handed over by its path through /proc/PID.
 * The loader's own answer stays as it was. */
static unsigned gate_foreign(dt_gate_t *g, const gatewd_req_t *r)
{
	char path[PATH_MAX + 64];
	bool dynamic = false, noted = false;
	int fd = exec_target_open(r->pid, path, sizeof(path));

	if (getenv("DTRACE_EXEC_DEBUG") != NULL)
		fprintf(stderr, "dtrace: exec gate: pid %d of another mount "
			"namespace runs %s\n", r->pid, fd >= 0 ? path : "?");
	if (fd < 0)
		return 0;
	gate_program(g, fd, path, r, &dynamic, &noted);
	close(fd);
	return 0;
}

/* The watchdog's answer for a settled executable of these GF_ flags. */
static unsigned settled_answer(unsigned flags)
{
	return WD_SETTLED | (flags & GF_DYNAMIC ? WD_DYNAMIC : 0) |
	       (flags & GF_NOTED ? WD_WATCH : 0);
}

/* One exec the watchdog handed over (the executable open as fd): what to
 * answer, WD_SETTLED, WD_DYNAMIC, WD_WATCH and WD_INTERP flags.  An
 * executable whose start-up files carry notes keeps its exec watch event
 * at each exec (WD_WATCH): the providers hear of each process that runs
 * it, and name its probes (myapp1234), not only of the first. */
static unsigned gate_exec(dt_gate_t *g, int fd, const gatewd_req_t *r)
{
	if (r->foreign)
		return gate_foreign(g, r);
	if (g->have_interp && gate_key_eq(&r->key, &g->interp))
		return WD_SETTLED | WD_INTERP;
	gate_file_t *f = file_entry(g, &r->key);
	if (f == NULL)
		return 0;
	if (f->flags & GF_SETTLED)	/* the watchdog forgot it */
		return settled_answer(f->flags);

	bool dynamic = false, noted = false;
	if (!gate_program(g, fd, NULL, r, &dynamic, &noted))
		return 0;
	unsigned flags = GF_SETTLED | (dynamic ? GF_DYNAMIC : 0) |
			 (noted ? GF_NOTED : 0);
	files_mark(g, &r->key, flags);
	return settled_answer(flags);
}

/* Where the wait of an exec the watchdog held for us went: until the
 * thread ran (the event was read at deadline - GATE_HOLD_MAX_MS), and
 * deciding from t0 on. */
static void gate_count_request(dt_gate_t *g, const gatewd_req_t *r,
			       uint64_t t0)
{
	uint64_t event = r->deadline_ns - GATE_HOLD_MAX_MS * 1000000ull;

	if (r->answered)
		return;
	g->nreq++;
	g->to_run_sum_ns += t0 > event ? t0 - event : 0;
	g->decide_sum_ns += dt_now_ns() - t0;
}

/* Read one message of the watchdog and answer it.  false: the watchdog is
 * gone. */
static bool gate_request(dt_gate_t *g)
{
	gatewd_req_t r;
	int fd;
	ssize_t len = dt_gatewd_recv(g->sock, &r, sizeof(r), &fd,
				     MSG_DONTWAIT);

	if (len < 0)
		return errno == EAGAIN || errno == EINTR;
	if (len != sizeof(r) || r.kind != WD_EXEC || fd < 0) {
		if (fd >= 0)
			close(fd);
		return len == sizeof(r);	/* else the end */
	}
	uint64_t t0 = dt_now_ns();
	gatewd_cmd_t c = {
		.kind = WD_ANSWER, .seq = r.seq, .key = r.key,
		.flags = gate_exec(g, fd, &r),
	};
	close(fd);
	gate_count_request(g, &r, t0);
	return dt_gatewd_send(g->sock, &c, sizeof(c), -1, 0) ||
	       errno == EINTR;
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

/* --- the thread --- */

/* How often the thread looks at the watchdog's state. */
#define GATE_WD_CHECK_MS	50

/* The watchdog stopped (SIGSTOP sent to it, a debugger) would hold every
 * exec on the machine for as long as it stays stopped: it is ended, which
 * lets them all go (the kernel allows the pending events of a group whose
 * last descriptor closes).  Whether it was. */
static bool watchdog_stopped(dt_gate_t *g)
{
	dt_procfs_stat_t st;

	if (dt_procfs_stat(g->wd_pid, &st) != 0 ||
	    (st.state != 'T' && st.state != 't'))
		return false;
	kill(g->wd_pid, SIGKILL);
	return true;
}

static void *gate_main(void *arg)
{
	dt_gate_t *g = arg;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = g->stop_fd, .events = POLLIN },
			{ .fd = g->sock, .events = POLLIN },
		};
		int n = poll(pfd, 2, GATE_WD_CHECK_MS);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0 && watchdog_stopped(g)) {
			dt_warn(NULL, "the exec gate's watchdog was stopped: it "
				"was ended, and programs started from now on "
				"are traced a few milliseconds after exec");
			return NULL;
		}
		if (pfd[0].revents)
			return NULL;
		if (pfd[1].revents && !gate_request(g))
			break;
	}
	dt_warn(NULL, "the exec gate's watchdog ended: programs started "
		"from now on are traced a few milliseconds after exec");
	return NULL;
}

/* --- the gate's life --- */

static void gate_free(dt_gate_t *g)
{
	if (g->wake_fd >= 0)
		close(g->wake_fd);
	if (g->stop_fd >= 0)
		close(g->stop_fd);
	if (g->sock >= 0)
		close(g->sock);
	for (char **sec = g->sections; sec && *sec; sec++)
		free(*sec);
	free(g->sections);
	if (g->ldso)
		dt_ldso_close(g->ldso);
	dt_htab_fini(&g->files);
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

static void gate_init_sync(dt_gate_t *g)
{
	pthread_condattr_t ca;

	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->cond, &ca);
	pthread_condattr_destroy(&ca);
}

/* The group, and the watchdog that answers it; -errno. */
static int gate_start_watchdog(dt_gate_t *g)
{
	int fan_fd = group_open();

	if (fan_fd < 0)
		return fan_fd;
	int rc = dt_gatewd_start(fan_fd, &g->sock, &g->wd_pid);
	close(fan_fd);	/* the watchdog's alone from now on */
	return rc;
}

/* The watchdog's statistics, read after WD_STOP (requests still queued
 * are dropped); zeros when it does not answer within a second. */
static gatewd_stats_t gate_stop_watchdog(dt_gate_t *g)
{
	gatewd_cmd_t c = { .kind = WD_STOP };
	gatewd_req_t r = { .kind = 0 };
	int fd = -1;

	if (dt_gatewd_send(g->sock, &c, sizeof(c), -1, 0)) {
		struct pollfd pfd = { .fd = g->sock, .events = POLLIN };
		while (r.kind != WD_STATS && poll(&pfd, 1, 1000) > 0 &&
		       dt_gatewd_recv(g->sock, &r, sizeof(r), &fd, 0) > 0) {
			if (fd >= 0)
				close(fd);
		}
	}
	kill(g->wd_pid, SIGKILL);	/* it has ended, or must */
	while (waitpid(g->wd_pid, NULL, 0) < 0 && errno == EINTR)
		;
	return r.kind == WD_STATS ? r.stats : (gatewd_stats_t){ 0 };
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

/* The key of dtrace's own loader, the one programs of this system use. */
static void gate_find_interp(dt_gate_t *g)
{
	char path[PATH_MAX];
	uint64_t off;
	struct stat sb;

	if (dt_rtld_hook(path, sizeof(path), &off) == 0 &&
	    stat(path, &sb) == 0) {
		g->interp = gate_key_of(&sb);
		g->have_interp = true;
	}
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
	gate_init_sync(g);
	dt_htab_init(&g->files, sizeof(gate_file_t), file_eq);
	g->sock = -1;
	g->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g->ldso = dt_ldso_open();
	gate_find_interp(g);
	if (g->wake_fd < 0 || g->stop_fd < 0 || g->ldso == NULL) {
		snprintf(msg, msglen, "%s", strerror(errno ? errno : ENOMEM));
		gate_free(g);
		return NULL;
	}
	int rc = gate_start_watchdog(g);
	if (rc < 0) {
		snprintf(msg, msglen, "fanotify: %s", strerror(-rc));
		gate_free(g);
		return NULL;
	}
	if (!gate_start_thread(g)) {
		snprintf(msg, msglen, "cannot start its thread");
		gate_stop_watchdog(g);
		gate_free(g);
		return NULL;
	}
	return g;
}

void dt_gate_arm(dt_gate_t *g, int map_fd, int value)
{
	gatewd_cmd_t c = { .kind = WD_ARM, .value = value };

	/* Lost only when the watchdog is gone, and the gate with it. */
	if (!dt_gatewd_send(g->sock, &c, sizeof(c), map_fd, 0))
		return;
}

int dt_gate_fd(const dt_gate_t *g)
{
	return g->wake_fd;
}

static void gate_print_stats(const dt_gate_t *g, const gatewd_stats_t *st)
{
	fprintf(stderr, "dtrace: exec gate: %llu execs, %llu held, hold avg "
		"%llu us max %llu us, %llu not served in time; watchdog: "
		"%llu answered from its cache, %llu waited for dtrace (avg "
		"%llu us max %llu us), %llu let go at the %d ms bound, %llu "
		"let go at once while dtrace was stopped or late; of their "
		"wait, until the gate thread ran avg %llu us, deciding avg "
		"%llu us\n",
		(unsigned long long)st->nexec, (unsigned long long)g->nheld,
		(unsigned long long)(g->nheld ? g->hold_sum_ns / g->nheld /
				     1000 : 0),
		(unsigned long long)g->hold_max_ns / 1000,
		(unsigned long long)g->ntimeouts,
		(unsigned long long)st->ncached,
		(unsigned long long)st->nforwarded,
		(unsigned long long)(st->nforwarded ? st->wait_sum_ns /
				     st->nforwarded / 1000 : 0),
		(unsigned long long)st->wait_max_ns / 1000,
		(unsigned long long)st->nbound, GATE_HOLD_MAX_MS,
		(unsigned long long)st->npassed,
		(unsigned long long)(g->nreq ? g->to_run_sum_ns / g->nreq /
				     1000 : 0),
		(unsigned long long)(g->nreq ? g->decide_sum_ns / g->nreq /
				     1000 : 0));
}

void dt_gate_close(dt_gate_t *g, int stats)
{
	uint64_t one = 1;

	if (g == NULL)
		return;
	pthread_mutex_lock(&g->lock);
	g->closing = true;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
	if (write(g->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(g->thread, NULL);
	else
		pthread_detach(g->thread);	/* cannot happen */
	gatewd_stats_t st = gate_stop_watchdog(g);
	if (stats)
		gate_print_stats(g, &st);
	gate_free(g);	/* the thread left the slot free */
}
