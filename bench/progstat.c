/* SPDX-License-Identifier: MIT */
/*
 * bench/progstat.c: the time the kernel spends inside the BPF programs a
 * command loads, measured by the kernel itself (BPF_ENABLE_STATS).
 *
 *   progstat -- CMD [ARGS...]
 *	runs CMD with the kernel's run-time statistics of BPF programs on,
 *	watches the programs loaded after its start (every 10 ms, keeping the
 *	last figures seen of each, since a program's figures go with it),
 *	and once CMD has exited prints on its standard output
 *		progstat RUNS NS NAME
 *	for the program that ran most often: RUNS runs, NS ns in all (its
 *	subprograms and bpf_loop callbacks included).  With PROGSTAT_RUNS=N
 *	in the environment, the program whose runs are closest to N instead:
 *	on a machine others use, their programs loaded meanwhile may run
 *	more often than the one measured.  The uprobe's own cost
 *	(trap, context, the link's dispatch) is outside these figures: they
 *	are what a tracer's code adds to the kernel floor, the same for every
 *	tracer, and far less noisy than a loop's wall time on a busy machine.
 *	CMD's exit status is returned.
 *
 * The statistics stay on while this process holds the descriptor
 * BPF_ENABLE_STATS gave it, and go off when it exits.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PS_MAX 256

typedef struct ps_prog {
	uint32_t id;
	uint64_t runs, ns;
	char name[BPF_OBJ_NAME_LEN];
} ps_prog_t;

static ps_prog_t progs[PS_MAX];
static int nprogs;

static int bpf_sys(int cmd, union bpf_attr *a)
{
	return (int)syscall(__NR_bpf, cmd, a, sizeof(*a));
}

/* The id after id, 0 at the end. */
static uint32_t next_prog_id(uint32_t id)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.start_id = id;
	return bpf_sys(BPF_PROG_GET_NEXT_ID, &a) < 0 ? 0 : a.next_id;
}

static ps_prog_t *prog_slot(uint32_t id)
{
	for (int i = 0; i < nprogs; i++)
		if (progs[i].id == id)
			return &progs[i];
	if (nprogs == PS_MAX)
		return NULL;
	progs[nprogs].id = id;
	return &progs[nprogs++];
}

/* Record the figures of program id, when it still exists. */
static void sample(uint32_t id)
{
	union bpf_attr a;
	struct bpf_prog_info info;

	memset(&a, 0, sizeof(a));
	a.prog_id = id;
	int fd = bpf_sys(BPF_PROG_GET_FD_BY_ID, &a);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	if (bpf_sys(BPF_OBJ_GET_INFO_BY_FD, &a) == 0) {
		ps_prog_t *p = prog_slot(id);
		if (p != NULL && info.run_cnt >= p->runs) {
			p->runs = info.run_cnt;
			p->ns = info.run_time_ns;
			memcpy(p->name, info.name, sizeof(p->name));
		}
	}
	close(fd);
}

/* Sample every program whose id is above first. */
static void sample_all(uint32_t first)
{
	for (uint32_t id = next_prog_id(first); id != 0; id = next_prog_id(id))
		sample(id);
}

static uint32_t last_prog_id(void)
{
	uint32_t id = 0, next;

	while ((next = next_prog_id(id)) != 0)
		id = next;
	return id;
}

/* How far runs is from want. */
static uint64_t runs_off(uint64_t runs, uint64_t want)
{
	return runs > want ? runs - want : want - runs;
}

/* The program that ran most, or (want: a count) whose runs are nearest. */
static ps_prog_t *pick(const char *want)
{
	ps_prog_t *best = NULL;
	uint64_t w = want ? strtoull(want, NULL, 10) : 0;

	for (int i = 0; i < nprogs; i++) {
		if (best == NULL)
			best = &progs[i];
		else if (w != 0 ? runs_off(progs[i].runs, w) <
				  runs_off(best->runs, w)
				: progs[i].runs > best->runs)
			best = &progs[i];
	}
	return best;
}

int main(int argc, char **argv)
{
	union bpf_attr a;
	int status;

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: progstat -- CMD [ARGS...]\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.enable_stats.type = BPF_STATS_RUN_TIME;
	int stats = bpf_sys(BPF_ENABLE_STATS, &a);
	if (stats < 0) {
		fprintf(stderr, "progstat: BPF_ENABLE_STATS: %s\n",
			strerror(errno));
		return 2;
	}
	uint32_t first = last_prog_id();
	pid_t child = fork();
	if (child == 0) {
		close(stats);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "progstat: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(child, &status, WNOHANG) == 0) {
		sample_all(first);
		usleep(10000);
	}
	ps_prog_t *best = pick(getenv("PROGSTAT_RUNS"));
	if (best != NULL && best->runs > 0)
		printf("progstat %llu %llu %s\n", (unsigned long long)best->runs,
		       (unsigned long long)best->ns, best->name);
	close(stats);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
