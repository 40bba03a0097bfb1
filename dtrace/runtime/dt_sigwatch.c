/* SPDX-License-Identifier: MIT */
/*
 * dt_sigwatch.c: the signal watch.  When a uprobe cannot be handled, the
 * kernel kills the thread with SIGILL: a return through the uretprobe
 * trampoline with no pending return to go back to (a setjmp whose return
 * probe was placed, returning twice), an instruction its single-step could
 * not run, the uretprobe system call made outside the trampoline.  It
 * writes "failed to handle uretprobe, sending SIGILL" to the kernel log, and
 * nothing else tells: the traced program just dies, and dtrace -q exited 0
 * without a word.  This file says it on stderr, even with -q:
 *
 *	dtrace: pid 123 (prog) was killed by SIGILL: the kernel could not
 *	follow a return probe or step over a probed instruction
 *
 * How it is seen.  The uprobe code sends with force_sig(SIGILL), si_code
 * SI_KERNEL, to the current thread: the tracepoint signal:signal_generate
 * fires in the dying thread itself, with sig 4, code 0x80 (SI_KERNEL), pid
 * its thread id.  The watch is one perf event on that tracepoint per CPU,
 * for every process, with a filter "sig == 4 && code == 128" that the
 * kernel evaluates (a signal is rare next to a probe firing, and the
 * uprobes' firing path is not touched), and a small sample ring per CPU
 * whose samples give the sender's process and thread id and the raw
 * record (comm and target pid).  A sample counts when the thread signalled
 * is the one running (sent by the kernel on its own behalf, not by
 * another process's kill(), which is SI_USER anyway) and its process is
 * one the session's uprobes are in: named ones (-c, -p, pidNNN, USDT
 * probes of one process), or any when a uprobe covers every process
 * (pid:/path::, USDT templates); then the process reported may be one
 * that another session's uprobe killed.
 *
 * Why not the exit status: only a -c command is dtrace's child, a -p one
 * or one a glob covers is not, and SIGILL is not always the kernel's
 * (kill -ILL; a real illegal instruction is ILL_ILLOPN, not SI_KERNEL).
 * Why not a BPF program: the engine's programs run in the probes' path and
 * report through the output buffer, which -q and the consumer's formats
 * own; this needs neither, and no program to load.
 *
 * The watch starts once the session places a uprobe (before a -c command
 * runs), is polled with the targets' exits by the session's loop
 * (cmd/dt_session.c), which a sample wakes (its descriptors are among those
 * the loop sleeps on), and reports a process once.  A kernel or tracefs without the tracepoint gets one
 * warning; tracing goes on.  Its descriptors are owned by struct
 * dt_sigwatch and closed in dt_sigwatch_fini().
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "dt_impl.h"
#include "dt_bpf.h"
#include "dt_sigwatch.h"

#define SIG_FILTER	"sig == 4 && code == 128"	/* SIGILL, SI_KERNEL */
/* the raw record's fields, stable since the tracepoint was added (the
 * format file: common fields, sig, errno, code, comm[16], pid, ...) */
#define SIG_TP_COMM_OFFSET	20
#define SIG_TP_PID_OFFSET	36
#define SIG_TP_MIN_SIZE		40
#define SIG_RING_PAGES		4	/* data pages per CPU, a power of 2 */
#define SIG_PIDS_MAX		64	/* named processes kept, reported too */

struct dt_sigwatch {
	pid_t covered[SIG_PIDS_MAX];	/* processes with uprobes */
	int ncovered;
	bool every;			/* a uprobe covers every process */
	bool started, failed;
	pid_t reported[SIG_PIDS_MAX];	/* processes reported already */
	int nreported;
	int ncpus;
	int *fds;			/* per CPU, -1 when not open */
	void **rings;			/* per CPU, NULL when not mapped */
	size_t ring_size;		/* of each mapping */
};

static struct dt_sigwatch *sigwatch(dtrace_hdl_t *dtp)
{
	if (dtp->sigwatch == NULL)
		dtp->sigwatch = dt_zalloc(sizeof(*dtp->sigwatch));
	return dtp->sigwatch;
}

static bool pid_in(const pid_t *pids, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

void dt_sigwatch_cover(dtrace_hdl_t *dtp, pid_t pid)
{
	struct dt_sigwatch *sw = sigwatch(dtp);

	if (pid == 0 || sw->ncovered == SIG_PIDS_MAX)
		sw->every = true;	/* (past the table: any process) */
	else if (!pid_in(sw->covered, sw->ncovered, pid))
		sw->covered[sw->ncovered++] = pid;
}

/* The filtered tracepoint on one CPU, its ring mapped; -errno. */
static int open_cpu(struct dt_sigwatch *sw, long id, int cpu)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	attr.wakeup_events = 1;		/* a sample wakes the session's loop */
	attr.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	sw->fds[cpu] = fd;
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, SIG_FILTER) < 0)
		return -errno;
	sw->rings[cpu] = mmap(NULL, sw->ring_size, PROT_READ | PROT_WRITE,
			      MAP_SHARED, fd, 0);
	if (sw->rings[cpu] == MAP_FAILED) {
		sw->rings[cpu] = NULL;
		return -errno;
	}
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return -errno;
	return 0;
}

/* Open the events of every CPU that is online; -errno when none opened. */
static int open_events(struct dt_sigwatch *sw)
{
	long id = dt_bpf_tracepoint_id("signal", "signal_generate");
	int opened = 0, err = -ENOENT;

	if (id < 0)
		return -ENOENT;
	sw->ncpus = libbpf_num_possible_cpus();
	if (sw->ncpus <= 0)
		return sw->ncpus < 0 ? sw->ncpus : -ENODEV;
	sw->fds = dt_zalloc(sizeof(*sw->fds) * (size_t)sw->ncpus);
	sw->rings = dt_zalloc(sizeof(*sw->rings) * (size_t)sw->ncpus);
	sw->ring_size = (size_t)(1 + SIG_RING_PAGES) *
			(size_t)sysconf(_SC_PAGESIZE);
	for (int cpu = 0; cpu < sw->ncpus; cpu++) {
		sw->fds[cpu] = -1;
		int rc = open_cpu(sw, id, cpu);
		if (rc == 0)
			opened++;
		else if (rc != -ENODEV && rc != -EINVAL)
			err = rc;	/* (an offline CPU: ENODEV) */
	}
	return opened > 0 ? 0 : err;
}

void dt_sigwatch_start(dtrace_hdl_t *dtp)
{
	struct dt_sigwatch *sw = dtp->sigwatch;
	int rc;

	if (sw == NULL || sw->started || sw->failed ||
	    (sw->ncovered == 0 && !sw->every))
		return;
	if ((rc = open_events(sw)) < 0) {
		sw->failed = true;
		dt_warn(dtp, "cannot watch the signal:signal_generate "
			"tracepoint (%s): a traced process the kernel kills "
			"for a uprobe it cannot handle will not be reported",
			strerror(-rc));
		return;
	}
	sw->started = true;
}

/* Copy len bytes at offset pos (mod size) of a ring's data to dst. */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t pos,
		      void *dst, size_t len)
{
	uint64_t at = pos & (size - 1);
	size_t first = len < size - at ? len : (size_t)(size - at);

	memcpy(dst, data + at, first);
	memcpy((uint8_t *)dst + first, data, len - first);
}

/* One sample: { u32 pid, tid; u32 size; raw[size] }. */
static void sample(dtrace_hdl_t *dtp, struct dt_sigwatch *sw,
		   const uint8_t *rec, size_t len)
{
	uint32_t pid, tid, size;
	int32_t target;
	char comm[17];

	if (len < 12)
		return;
	memcpy(&pid, rec, 4);
	memcpy(&tid, rec + 4, 4);
	memcpy(&size, rec + 8, 4);
	if (size < SIG_TP_MIN_SIZE || 12 + (size_t)size > len)
		return;
	memcpy(&target, rec + 12 + SIG_TP_PID_OFFSET, 4);
	memcpy(comm, rec + 12 + SIG_TP_COMM_OFFSET, 16);
	comm[16] = '\0';
	if ((uint32_t)target != tid ||
	    (!sw->every && !pid_in(sw->covered, sw->ncovered, (pid_t)pid)) ||
	    pid_in(sw->reported, sw->nreported, (pid_t)pid))
		return;
	if (sw->nreported < SIG_PIDS_MAX)
		sw->reported[sw->nreported++] = (pid_t)pid;
	dt_warn(dtp, "pid %u (%s) was killed by SIGILL: the kernel could not "
		"follow a return probe or step over a probed instruction",
		pid, comm);
}

static void drain(dtrace_hdl_t *dtp, struct dt_sigwatch *sw, void *ring)
{
	struct perf_event_mmap_page *meta = ring;
	const uint8_t *data = (const uint8_t *)ring + meta->data_offset;
	uint64_t size = meta->data_size;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	uint8_t rec[512];

	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;

		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.type == PERF_RECORD_SAMPLE &&
		    h.size - sizeof(h) <= sizeof(rec)) {
			ring_copy(data, size, tail + sizeof(h), rec,
				  h.size - sizeof(h));
			sample(dtp, sw, rec, h.size - sizeof(h));
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void dt_sigwatch_poll(dtrace_hdl_t *dtp)
{
	struct dt_sigwatch *sw = dtp->sigwatch;

	if (sw == NULL)
		return;
	dt_sigwatch_start(dtp);
	for (int cpu = 0; sw->started && cpu < sw->ncpus; cpu++)
		if (sw->rings[cpu] != NULL)
			drain(dtp, sw, sw->rings[cpu]);
}

int dt_sigwatch_fds(const dtrace_hdl_t *dtp, const int **fds)
{
	const struct dt_sigwatch *sw = dtp->sigwatch;

	if (sw == NULL || !sw->started)
		return 0;
	*fds = sw->fds;
	return sw->ncpus;
}

void dt_sigwatch_fini(dtrace_hdl_t *dtp)
{
	struct dt_sigwatch *sw = dtp->sigwatch;

	if (sw == NULL)
		return;
	for (int cpu = 0; sw->fds != NULL && cpu < sw->ncpus; cpu++) {
		if (sw->rings[cpu] != NULL)
			munmap(sw->rings[cpu], sw->ring_size);
		if (sw->fds[cpu] >= 0)
			close(sw->fds[cpu]);
	}
	free(sw->fds);
	free(sw->rings);
	free(sw);
	dtp->sigwatch = NULL;
}
