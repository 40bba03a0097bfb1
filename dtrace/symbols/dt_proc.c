/* SPDX-License-Identifier: MIT */
/*
 * dt_proc.c: starting (-c) and grabbing (-p) the processes a session
 * traces, and noticing when they exit.  See dt_proc.h for the contract.
 *
 * Starting a command.  The child asks to be traced (PTRACE_TRACEME) and
 * execs the command; a close-on-exec pipe tells the parent whether the exec
 * worked (the child writes errno into it when it did not).  The kernel stops
 * the child with SIGTRAP right after the exec, when only the dynamic linker
 * is mapped.  To get to where -x evaltime places the probes, the parent
 * plants an int3 at that place, lets the child run into it, then puts the
 * original byte and the instruction pointer back: for preinit (the
 * default), the loader's debugger hook, until a call of it says the initial
 * libraries are mapped (their initializers have not run); for postinit,
 * the program's entry point (AT_ENTRY from /proc/PID/auxv: the libraries
 * are initialized, none of the program's own code has run).  exec stops
 * right after the exec, and goes to the loader's hook once its probes are
 * placed (dt_proc_load_libraries()).  The child then stays stopped until
 * dt_proc_release().
 *
 * All ptrace requests come from the thread that forked the child, as ptrace
 * requires.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dt_proc.h"
#include "dt_procfs.h"
#include "dt_procmaps.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* ---- command splitting ------------------------------------------------- */

void dt_proc_argv_free(char **argv)
{
	size_t i;

	if (argv == NULL)
		return;
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* Read one word starting at *pp into buf (as long as the rest of cmd at
 * most); '...' keeps everything, "..." honours \" and \\, a bare \ quotes
 * the next character.  Returns false on an unterminated quote. */
static bool split_word(const char **pp, char *buf)
{
	const char *p = *pp;
	char quote = 0;

	for (; *p != '\0'; p++) {
		if (quote == '\'') {
			if (*p == '\'')
				quote = 0;
			else
				*buf++ = *p;
		} else if (quote == '"') {
			if (*p == '"')
				quote = 0;
			else if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
				*buf++ = *++p;
			else
				*buf++ = *p;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '\\' && p[1] != '\0') {
			*buf++ = *++p;
		} else if (*p == ' ' || *p == '\t' || *p == '\n') {
			break;
		} else {
			*buf++ = *p;
		}
	}
	*buf = '\0';
	*pp = p;
	return quote == 0;
}

char **dt_proc_split(const char *cmd)
{
	size_t n = 0, len = strlen(cmd);
	char **argv = calloc(len / 2 + 2, sizeof(char *));
	const char *p = cmd;

	if (argv == NULL)
		return NULL;
	for (;;) {
		p += strspn(p, " \t\n");
		if (*p == '\0')
			break;
		if ((argv[n] = malloc(len + 1)) == NULL ||
		    !split_word(&p, argv[n])) {
			n += argv[n] != NULL;
			goto fail;
		}
		n++;
	}
	if (n == 0)
		goto fail;
	return argv;
fail:
	argv[n] = NULL;
	dt_proc_argv_free(argv);
	return NULL;
}

/* ---- the target table -------------------------------------------------- */

static struct dt_proc_state *proc_state(dtrace_hdl_t *dtp)
{
	if (dtp->proc == NULL) {
		dtp->proc = dt_zalloc(sizeof(*dtp->proc));
		dtp->proc->epfd = epoll_create1(EPOLL_CLOEXEC);
	}
	return dtp->proc;
}

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static dt_proc_t *add_target(dtrace_hdl_t *dtp, pid_t pid, int pidfd,
			     bool created)
{
	struct dt_proc_state *ps = proc_state(dtp);
	dt_proc_t *p;

	ps->procs = dt_realloc(ps->procs, (ps->nprocs + 1) * sizeof(*p));
	p = &ps->procs[ps->nprocs];
	*p = (dt_proc_t){ .pid = pid, .pidfd = pidfd, .created = created };
	if (pidfd >= 0 && ps->epfd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN,
					  .data.u32 = (uint32_t)ps->nprocs };

		epoll_ctl(ps->epfd, EPOLL_CTL_ADD, pidfd, &ev);
	}
	ps->nprocs++;
	if (dtp->target == 0)
		dtp->target = pid;
	return p;
}

/* ---- -c ---------------------------------------------------------------- */

/* Whether environment entry e ("NAME=VALUE") is variable name (up to its
 * '=' or its end). */
static bool env_is(const char *e, const char *name)
{
	size_t n = strcspn(name, "=");

	return strncmp(e, name, n) == 0 && e[n] == '=';
}

/* The environment of a process -c starts: NULL when -x setenv and unsetenv
 * (dtp->opt.env_edits, in order) changed nothing, else a new
 * NULL-terminated array (free the array alone: its strings are the
 * options' and environ's). */
static char **proc_env(const dtrace_hdl_t *dtp)
{
	const dt_options_t *o = &dtp->opt;
	size_t n = 0, max;
	char **env;

	if (o->nenv_edits == 0)
		return NULL;
	while (environ[n] != NULL)
		n++;
	max = n + (size_t)o->nenv_edits + 1;
	env = dt_zalloc(max * sizeof(char *));
	for (size_t i = 0; i < n; i++)
		env[i] = environ[i];
	for (int k = 0; k < o->nenv_edits; k++) {
		const char *e = o->env_edits[k];
		size_t j = 0;

		while (j < n && !env_is(env[j], e))
			j++;
		if (strchr(e, '=') != NULL) {	/* setenv */
			env[j] = (char *)e;
			n += j == n;
		} else if (j < n) {		/* unsetenv */
			memmove(&env[j], &env[j + 1], (n - j) * sizeof(char *));
			n--;
		}
	}
	env[n] = NULL;
	return env;
}

static _Noreturn void child_exec(char **argv, char **envp, int errfd)
{
	int err;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execvpe(argv[0], argv, envp != NULL ? envp : environ);
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* The value of auxiliary vector entry type (AT_ENTRY...) of a process,
 * or 0. */
static uint64_t auxv_value(pid_t pid, uint64_t type)
{
	char path[64];
	Elf64_auxv_t av;
	uint64_t value = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while (read(fd, &av, sizeof(av)) == (ssize_t)sizeof(av) &&
	       av.a_type != AT_NULL) {
		if (av.a_type == type) {
			value = av.a_un.a_val;
			break;
		}
	}
	close(fd);
	return value;
}

/* Wait for the child to stop with signal stop (SIGTRAP; SIGTRAP | 0x80
 * for a system call stop), resuming it with resume (PTRACE_CONT,
 * PTRACE_SYSCALL) past any other stop and passing on the signal it
 * received (not a stray SIGTRAP).  Returns 0, or -1 with *status set if it
 * died. */
static int wait_stop(pid_t pid, int *status, int stop,
		     enum __ptrace_request resume)
{
	for (;;) {
		if (waitpid(pid, status, 0) < 0)
			return -1;
		if (!WIFSTOPPED(*status))
			return -1;
		if (WSTOPSIG(*status) == stop)
			return 0;
		int sig = WSTOPSIG(*status) == SIGTRAP ? 0 : WSTOPSIG(*status);
		if (ptrace(resume, pid, NULL, (void *)(long)sig) != 0)
			return -1;
	}
}

static int wait_trap(pid_t pid, int *status)
{
	return wait_stop(pid, status, SIGTRAP, PTRACE_CONT);
}

/* Run the stopped child up to its entry point (see the top of the file).
 * Returns NULL or a message describing the failure. */
static const char *run_to_entry(pid_t pid, int *status)
{
	uint64_t entry = auxv_value(pid, AT_ENTRY);
	struct user_regs_struct regs;
	long word;

	if (entry == 0)
		return "cannot find its entry point";
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
	if (errno != 0)
		return "cannot read its entry point";
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry,
		   (void *)((word & ~0xffL) | 0xcc)) != 0)
		return "cannot write its entry point";
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) != 0 ||
	    wait_trap(pid, status) != 0)
		return "it exited before reaching its entry point";
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0 ||
	    regs.rip != entry + 1)
		return "it stopped away from its entry point";
	regs.rip = entry;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word) != 0 ||
	    ptrace(PTRACE_SETREGS, pid, NULL, &regs) != 0)
		return "cannot restore its entry point";
	return NULL;
}

/*
 * The loader's progress, watched from the child's system calls.  A child
 * stopped right after its exec maps only the program and the dynamic
 * loader; the libraries come next.  The loader publishes its progress in
 * its r_debug (the one the program's DT_DEBUG entry points to, filled in
 * before the libraries are looked for): r_state is RT_ADD while it maps
 * them and RT_CONSISTENT once they are all mapped, before it relocates
 * them (mprotect() of their RELRO) and runs their initializers.  The child
 * runs from system call to system call (PTRACE_SYSCALL) until one comes
 * after RT_ADD gave way to RT_CONSISTENT, or from outside the loader's
 * code (a library's code runs: nothing was loaded, or no call came in
 * between); it stays stopped there.  Nothing is written into its code: an
 * int3 at the loader's hook would meet any uprobe another session placed
 * there, and the kernel would take the int3 for that uprobe's.
 */

/* len bytes of the child's memory (mem: its /proc/PID/mem) at addr; 0 or
 * -1. */
static int peek(int mem, uint64_t addr, void *buf, size_t len)
{
	return pread(mem, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

/* The address of the program's dynamic section in the child, or 0. */
static uint64_t child_dynamic(pid_t pid, int mem)
{
	uint64_t phdr = auxv_value(pid, AT_PHDR);
	uint64_t phnum = auxv_value(pid, AT_PHNUM);
	uint64_t bias = 0, dyn = 0;
	Elf64_Phdr ph;

	for (uint64_t i = 0; phdr != 0 && i < phnum && i < 128; i++) {
		if (peek(mem, phdr + i * sizeof(ph), &ph, sizeof(ph)) != 0)
			return 0;
		if (ph.p_type == PT_PHDR)
			bias = phdr - ph.p_vaddr;
		else if (ph.p_type == PT_DYNAMIC)
			dyn = ph.p_vaddr;
	}
	return dyn != 0 ? bias + dyn : 0;
}

/* Where the value of the program's DT_DEBUG entry lies in the child (the
 * loader writes its r_debug's address there), or 0 when it has none. */
static uint64_t child_debug_slot(pid_t pid, int mem)
{
	uint64_t dyn = child_dynamic(pid, mem);
	Elf64_Dyn d;

	for (int i = 0; dyn != 0 && i < 1024; i++) {
		uint64_t at = dyn + (uint64_t)i * sizeof(d);

		if (peek(mem, at, &d, sizeof(d)) != 0 || d.d_tag == DT_NULL)
			return 0;
		if (d.d_tag == DT_DEBUG)
			return at + offsetof(Elf64_Dyn, d_un);
	}
	return 0;
}

/* The loader's r_state in the child (RT_CONSISTENT, RT_ADD...), or -1
 * while its r_debug is not known yet. */
static int child_r_state(int mem, uint64_t slot)
{
	uint64_t r_debug;
	int state;

	if (peek(mem, slot, &r_debug, sizeof(r_debug)) != 0 || r_debug == 0 ||
	    peek(mem, r_debug + offsetof(struct r_debug, r_state), &state,
		 sizeof(state)) != 0)
		return -1;
	return state;
}

/* The addresses the loader's file is mapped at in the child. */
static bool loader_range(pid_t pid, uint64_t base, uint64_t *lo,
			 uint64_t *hi)
{
	dt_mapping_t *maps;
	size_t n;

	if (dt_proc_maps(pid, &maps, &n) != 0)
		return false;
	const dt_mapping_t *at = dt_proc_map_at(maps, n, base);
	*lo = *hi = 0;
	for (size_t i = 0; at != NULL && i < n; i++) {
		if (maps[i].ino != at->ino || maps[i].dev != at->dev)
			continue;
		if (*lo == 0 || maps[i].start < *lo)
			*lo = maps[i].start;
		if (maps[i].end > *hi)
			*hi = maps[i].end;
	}
	dt_proc_maps_free(maps, n);
	return *hi != 0;
}

/* Stops of the loader's system calls, entry and exit, before giving up. */
#define LOADER_SYSCALL_STOPS	4096

/* Follow the child, at the system call stops of its loader (code between
 * lo and hi), until the loader has mapped its libraries (see above): NULL,
 * or a message. */
static const char *follow_loader(pid_t pid, int mem, uint64_t slot,
				 uint64_t lo, uint64_t hi)
{
	bool adding = false;
	int status;

	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)
		   (PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD)) != 0)
		return "cannot follow its system calls";
	for (int i = 0; i < LOADER_SYSCALL_STOPS; i++) {
		struct user_regs_struct regs;

		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL) != 0 ||
		    wait_stop(pid, &status, SIGTRAP | 0x80,
			      PTRACE_SYSCALL) != 0)
			return "it exited while its libraries were loaded";
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs) != 0)
			return "cannot read its registers";
		int state = child_r_state(mem, slot);
		if (state == RT_ADD)
			adding = true;
		if ((adding && state == RT_CONSISTENT) || regs.rip < lo ||
		    regs.rip >= hi)
			break;
	}
	return NULL;
}

/* Run the child stopped after its exec until its initial libraries are
 * mapped (see above): NULL with *ran set, or a message.  *ran is false
 * for a program without a loader (static), which has no libraries. */
static const char *run_to_libraries(pid_t pid, bool *ran)
{
	uint64_t base = auxv_value(pid, AT_BASE), lo, hi;
	const char *why = NULL;
	char path[64];

	*ran = false;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int mem = open(path, O_RDONLY | O_CLOEXEC);
	if (mem < 0)
		return NULL;
	uint64_t slot = child_debug_slot(pid, mem);
	if (base != 0 && slot != 0 && loader_range(pid, base, &lo, &hi)) {
		why = follow_loader(pid, mem, slot, lo, hi);
		*ran = why == NULL;
	}
	close(mem);
	return why;
}

/* Run the child stopped after its exec to where -x evaltime says its
 * probes are placed: NULL, or why it could not.  preinit is the entry
 * point when the loader's progress cannot be followed (a static program,
 * one without DT_DEBUG), where there are no libraries or nothing is known
 * of them. */
static const char *run_to_evaltime(pid_t pid, int evaltime, int *status)
{
	const char *why;
	bool ran;

	switch (evaltime) {
	case DT_EVALTIME_EXEC:
		return NULL;
	case DT_EVALTIME_PREINIT:
		if ((why = run_to_libraries(pid, &ran)) != NULL || ran)
			return why;
		return run_to_entry(pid, status);
	default:
		return run_to_entry(pid, status);
	}
}

int dt_proc_load_libraries(dtrace_hdl_t *dtp)
{
	struct dt_proc_state *ps = dtp->proc;
	int ran_any = 0;

	for (int i = 0; ps != NULL && i < ps->nprocs; i++) {
		dt_proc_t *p = &ps->procs[i];
		bool ran;

		if (!p->stopped || !p->at_exec)
			continue;
		const char *why = run_to_libraries(p->pid, &ran);
		if (why != NULL) {
			dt_set_error(dtp, "failed to run pid %d to its "
				     "libraries: %s", (int)p->pid, why);
			return -1;
		}
		p->at_exec = false;
		ran_any |= ran;
	}
	return ran_any;
}

static void kill_and_reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Fork and exec argv under ptrace; returns the child's pid, or -1 with
 * *errp set to the exec's errno. */
static pid_t spawn_traced(char **argv, char **envp, int *errp)
{
	int fds[2], err = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) != 0) {
		*errp = errno;
		return -1;
	}
	fflush(NULL);	/* the child must not write our buffered output */
	if ((pid = fork()) < 0) {
		*errp = errno;
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		child_exec(argv, envp, fds[1]);
	}
	close(fds[1]);
	while ((n = read(fds[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(fds[0]);
	if (n == (ssize_t)sizeof(err)) {	/* exec failed */
		int status;

		waitpid(pid, &status, 0);
		*errp = err;
		return -1;
	}
	return pid;
}

int dt_proc_create(dtrace_hdl_t *dtp, const char *cmd, pid_t *pidp)
{
	char **argv = dt_proc_split(cmd);
	const char *why;
	int err = 0, status = 0;
	dt_proc_t *p;
	pid_t pid;

	if (argv == NULL) {
		dt_set_error(dtp, "failed to execute %s: %s", cmd,
			     *cmd ? "unterminated quote" : "empty command");
		return -1;
	}
	char **envp = proc_env(dtp);	/* -x setenv, unsetenv */

	pid = spawn_traced(argv, envp, &err);
	free(envp);
	if (pid < 0) {
		dt_set_error(dtp, "failed to execute %s: %s", argv[0],
			     strerror(err));
		dt_proc_argv_free(argv);
		return -1;
	}
	/* the stop that follows the exec */
	if (wait_trap(pid, &status) != 0) {
		why = "it exited right after its exec";
		goto fail;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
	if ((why = run_to_evaltime(pid, dtp->opt.evaltime, &status)) != NULL)
		goto fail;
	dt_proc_argv_free(argv);
	p = add_target(dtp, pid, pidfd_open(pid), true);
	p->stopped = true;
	p->at_exec = dtp->opt.evaltime == DT_EVALTIME_EXEC;
	*pidp = pid;
	return 0;
fail:
	dt_set_error(dtp, "failed to execute %s: %s", argv[0], why);
	dt_proc_argv_free(argv);
	kill_and_reap(pid);
	return -1;
}

/* ---- -p ---------------------------------------------------------------- */

/* A zombie still answers kill(pid, 0) but cannot be traced. */
static bool is_zombie(pid_t pid)
{
	dt_procfs_stat_t st;

	return dt_procfs_stat(pid, &st) == 0 && st.state == 'Z';
}

int dt_proc_grab(dtrace_hdl_t *dtp, pid_t pid)
{
	int fd;

	if (pid <= 0 || kill(pid, 0) != 0 || is_zombie(pid)) {
		dt_set_error(dtp, "failed to grab pid %d: %s", (int)pid,
			     pid > 0 && errno == EPERM ? strerror(EPERM) :
			     strerror(ESRCH));
		return -1;
	}
	/* pidfd_open refuses a thread that is not a process (EINVAL) */
	if ((fd = pidfd_open(pid)) < 0 && errno == EINVAL) {
		dt_set_error(dtp, "failed to grab pid %d: %s", (int)pid,
			     strerror(ESRCH));
		return -1;
	}
	add_target(dtp, pid, fd, false);
	return 0;
}

/* ---- running and exiting ----------------------------------------------- */

int dt_proc_release(dtrace_hdl_t *dtp)
{
	struct dt_proc_state *ps = dtp->proc;
	int i, rc = 0;

	for (i = 0; ps != NULL && i < ps->nprocs; i++) {
		dt_proc_t *p = &ps->procs[i];

		if (!p->stopped)
			continue;
		if (ptrace(PTRACE_DETACH, p->pid, NULL, NULL) != 0) {
			dt_set_error(dtp, "failed to release pid %d: %s",
				     (int)p->pid, strerror(errno));
			rc = -1;
		}
		p->stopped = false;
	}
	return rc;
}

int dt_proc_fd(dtrace_hdl_t *dtp)
{
	return dtp->proc && dtp->proc->nprocs ? dtp->proc->epfd : -1;
}

static bool pidfd_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLIN | POLLHUP));
}

/* Whether target p has exited; for our own child, reap it and keep its
 * status. */
static bool target_gone(dt_proc_t *p)
{
	if (p->created) {
		pid_t r = waitpid(p->pid, &p->status, WNOHANG);

		return r == p->pid || (r < 0 && errno == ECHILD);
	}
	if (p->pidfd >= 0)
		return pidfd_readable(p->pidfd);
	return kill(p->pid, 0) != 0 && errno == ESRCH;
}

static void exit_message(const dt_proc_t *p, char *msg, size_t len)
{
	if (p->created && WIFSIGNALED(p->status)) {
		const char *sig = sigabbrev_np(WTERMSIG(p->status));

		if (sig)
			snprintf(msg, len, "pid %d terminated by SIG%s",
				 (int)p->pid, sig);
		else
			snprintf(msg, len, "pid %d terminated by signal %d",
				 (int)p->pid, WTERMSIG(p->status));
	} else if (p->created && WIFEXITED(p->status) &&
		   WEXITSTATUS(p->status) != 0) {
		snprintf(msg, len, "pid %d exited with status %d", (int)p->pid,
			 WEXITSTATUS(p->status));
	} else {
		snprintf(msg, len, "pid %d has exited", (int)p->pid);
	}
}

/* Notice the targets that exited since the last look. */
static void update_targets(struct dt_proc_state *ps)
{
	int i;

	for (i = 0; ps != NULL && i < ps->nprocs; i++) {
		dt_proc_t *p = &ps->procs[i];

		if (p->exited || p->stopped || !target_gone(p))
			continue;
		p->exited = true;
		if (p->pidfd >= 0 && ps->epfd >= 0)
			epoll_ctl(ps->epfd, EPOLL_CTL_DEL, p->pidfd, NULL);
	}
}

int dt_proc_check(dtrace_hdl_t *dtp, char *msg, size_t msglen)
{
	struct dt_proc_state *ps = dtp->proc;
	int i;

	update_targets(ps);
	for (i = 0; ps != NULL && i < ps->nprocs; i++) {
		dt_proc_t *p = &ps->procs[i];

		if (!p->exited || p->reported)
			continue;
		p->reported = true;
		exit_message(p, msg, msglen);
		return 1;
	}
	return 0;
}

bool dt_proc_done(dtrace_hdl_t *dtp)
{
	struct dt_proc_state *ps = dtp->proc;
	int i;

	if (ps == NULL || ps->nprocs == 0)
		return false;
	update_targets(ps);
	for (i = 0; i < ps->nprocs; i++)
		if (!ps->procs[i].exited)
			return false;
	return true;
}

int dt_proc_exit_status(dtrace_hdl_t *dtp)
{
	struct dt_proc_state *ps = dtp->proc;
	int i;

	for (i = 0; ps != NULL && i < ps->nprocs; i++) {
		dt_proc_t *p = &ps->procs[i];

		if (!p->created || !p->exited)
			continue;
		if (WIFSIGNALED(p->status))
			return 128 + WTERMSIG(p->status);
		return WEXITSTATUS(p->status);
	}
	return -1;
}

int dt_proc_count(dtrace_hdl_t *dtp)
{
	return dtp->proc ? dtp->proc->nprocs : 0;
}

pid_t dt_proc_pid(dtrace_hdl_t *dtp, int i)
{
	if (dtp->proc == NULL || i < 0 || i >= dtp->proc->nprocs)
		return -1;
	return dtp->proc->procs[i].pid;
}

void dt_proc_fini(dtrace_hdl_t *dtp)
{
	struct dt_proc_state *ps = dtp->proc;
	int i;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->nprocs; i++) {
		dt_proc_t *p = &ps->procs[i];

		if (p->created && !p->exited)
			kill_and_reap(p->pid);
		if (p->pidfd >= 0)
			close(p->pidfd);
	}
	if (ps->epfd >= 0)
		close(ps->epfd);
	free(ps->procs);
	free(ps);
	dtp->proc = NULL;
}
