/* SPDX-License-Identifier: MIT */
/*
 * dt_nop5.c: what the kernel makes of a uprobe on a 5-byte nop, asked of
 * the kernel once per session, when a provider first wants to know.
 *
 * A kernel with the optimized uprobe (x86-64) rewrites a uprobe on a
 * 5-byte nop (0f 1f 44 00 00), at its first hit, into a call to a
 * trampoline page it maps into the process: a firing is then a call and a
 * system call, about four times cheaper than the breakpoint trap.  Such a
 * kernel has the trampoline's system call, `uprobe`, which answers ENXIO
 * to a caller that is not the trampoline (and does nothing), and ENOSYS
 * where it does not exist.
 *
 * The first kernels with it (6.18 among them) do not copy the trampoline
 * page into a child at fork, while the child's text keeps the call: a
 * forked child that runs an optimized site before it execs jumps into
 * nothing and dies of SIGSEGV (a PostgreSQL postmaster's backends, a
 * server's workers).  No version number says which kernels are fixed, so
 * the kernel is tried: a child of dtrace runs a 5-byte nop of dtrace's
 * own text (dt_nop5_site) under a uprobe that only it sees, twice (the
 * first hit optimizes the site), then forks, and its own child runs the
 * site again, with a SIGSEGV handler that exits with a status of its own
 * (no kernel log line).  The try costs a program load, a link and two
 * forks, a few milliseconds; the link, filtered on a process that is gone
 * by then, is closed with the session's others (dt_bpf_attach_uprobes).
 *
 * Invariants: nothing of dtrace's own process is probed (the link's pid
 * filter is the child); the children call only async-signal-safe
 * functions, as children of a threaded process must; a try that cannot
 * be made (no uprobe_multi links, no mapping found, a child that hangs
 * for a second) answers DT_NOP5_FORK_UNSAFE where the kernel optimizes:
 * the optimization is used only when known to be safe.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "dt_as.h"
#include "dt_bpf.h"
#include "dt_impl.h"
#include "dt_procmaps.h"

#ifdef __x86_64__

/* The optimized uprobe's system call (x86-64). */
#define DT_NR_UPROBE	336

/* A function that is a 5-byte nop and a return: the site of the try. */
__asm__(".pushsection .text\n"
	".globl dt_nop5_site\n"
	".hidden dt_nop5_site\n"
	".type dt_nop5_site, @function\n"
	"dt_nop5_site:\n"
	".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"
	"ret\n"
	".size dt_nop5_site, . - dt_nop5_site\n"
	".popsection\n");
void dt_nop5_site(void);

static bool kernel_has_uprobe_syscall(void)
{
	return syscall(DT_NR_UPROBE) == -1 && errno == ENXIO;
}

/* The file and offset dt_nop5_site is mapped from: 0, or -1. */
static int site_file(char *path, size_t len, uint64_t *off)
{
	uint64_t addr = (uint64_t)(uintptr_t)dt_nop5_site;
	dt_mapping_t *maps;
	size_t n;
	int rc = -1;

	if (dt_proc_maps(getpid(), &maps, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const dt_mapping_t *m = &maps[i];
		if (addr < m->start || addr >= m->end)
			continue;
		if (m->path != NULL && m->path[0] == '/' && !m->deleted &&
		    strlen(m->path) < len) {
			strcpy(path, m->path);
			*off = addr - m->start + m->pgoff;
			rc = 0;
		}
		break;
	}
	dt_proc_maps_free(maps, n);
	return rc;
}

static void exit_on_fault(int sig)
{
	(void)sig;
	_exit(3);
}

/* The child's child: the optimized site, after the fork. */
static int grandchild(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = exit_on_fault;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	dt_nop5_site();
	return 0;
}

/* The child: waits for the probe, optimizes the site, forks: exits 0 when
 * its child ran the site and exited 0. */
static void child(int go)
{
	char c;
	int st;

	if (read(go, &c, 1) != 1)
		_exit(2);
	dt_nop5_site();
	dt_nop5_site();
	pid_t gc = fork();
	if (gc == 0)
		_exit(grandchild());
	if (gc < 0 || waitpid(gc, &st, 0) != gc)
		_exit(2);
	_exit(WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1);
}

/* An empty program on path:off for pid only, its link kept with the
 * session's (closed at the end): 0, or -1. */
static int probe_child(dtrace_hdl_t *dtp, const char *path, uint64_t off,
		       pid_t pid)
{
	struct bpf_insn insns[] = { DT_MOV64_IMM(DT_R0, 0), DT_EXIT() };
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = DT_BPF_TRACE_UPROBE_MULTI);
	int err = 0, rc;
	dt_attach_req_t req = {
		.path = path, .pid = pid, .n = 1, .offsets = &off,
		.errs = &err,
	};

	req.prog_fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "dt_nop5",
				    DT_BPF_LICENSE, insns, 2, &opts);
	if (req.prog_fd < 0)
		return -1;
	rc = dt_bpf_attach_uprobes(dtp, &req);
	close(req.prog_fd);
	return rc == 0 && err == 0 ? 0 : -1;
}

/* The child's exit status, waiting a second at most (then killed). */
static int reap(pid_t pid)
{
	struct timespec ms = { 0, 1000000 };
	int st;

	for (int i = 0; i < 1000; i++) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		if (r < 0 && errno != EINTR)
			return -1;
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* Whether a forked child survives a site optimized in its parent. */
static bool fork_survives(dtrace_hdl_t *dtp)
{
	char path[4096];
	uint64_t off;
	int go[2], status;
	pid_t pid;

	if (!dt_bpf_features(dtp)->uprobe_multi ||
	    site_file(path, sizeof(path), &off) != 0 || pipe(go) != 0)
		return false;
	if ((pid = fork()) == 0) {
		close(go[1]);
		child(go[0]);
	}
	close(go[0]);
	if (pid < 0) {
		close(go[1]);
		return false;
	}
	if (probe_child(dtp, path, off, pid) != 0 ||
	    write(go[1], "g", 1) != 1) {
		close(go[1]);
		kill(pid, SIGKILL);
		reap(pid);
		return false;
	}
	close(go[1]);
	status = reap(pid);
	return status == 0;
}

static int nop5_probe(dtrace_hdl_t *dtp)
{
	if (!kernel_has_uprobe_syscall())
		return DT_NOP5_TRAP;
	return fork_survives(dtp) ? DT_NOP5_OPTIMIZED : DT_NOP5_FORK_UNSAFE;
}

#else

static int nop5_probe(dtrace_hdl_t *dtp)
{
	(void)dtp;
	return DT_NOP5_TRAP;
}

#endif

int dt_bpf_uprobe_nop5(dtrace_hdl_t *dtp)
{
	struct dt_bpf_state *st;

	dt_bpf_features(dtp);		/* makes dtp->bpf */
	st = dtp->bpf;
	if (!st->nop5_known) {
		st->nop5 = nop5_probe(dtp);
		st->nop5_known = true;
	}
	return st->nop5;
}
