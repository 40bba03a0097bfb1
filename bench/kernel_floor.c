/* SPDX-License-Identifier: MIT */
/*
 * kernel_floor.c: the kernel's own cost of a kernel event, with nothing of
 * dtrace in the way: an empty BPF program attached to one event while a
 * command runs.
 *
 *   kernel_floor tp CATEGORY EVENT -- CMD...	a tracepoint (perf event)
 *   kernel_floor rawtp EVENT NR -- CMD...	a raw tracepoint whose program
 *						compares args[1] (the system
 *						call's number at
 *						raw_syscalls' sys_enter) to NR
 *   kernel_floor fentry FUNC -- CMD...		a BPF trampoline at FUNC's entry
 *   kernel_floor kprobe FUNC -- CMD...		a kprobe at FUNC's entry
 *
 * The program is attached before CMD starts and detached after it exits;
 * CMD's output is its own (bench/syscall.sh reads the loop time from it).
 * Exit status: CMD's, or 2 when the event could not be attached.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int load(enum bpf_prog_type type, enum bpf_attach_type at,
		uint32_t btf_id, long nr)
{
	/* r0 = 0; [if args[1] != nr goto out; r0 = 0;] out: exit */
	struct bpf_insn filter[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 2,
		  .src_reg = 1, .off = 8 },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = 2, .off = 1,
		  .imm = (int)nr },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_insn *insns = nr >= 0 ? filter : filter + 3;
	size_t n = nr >= 0 ? 5 : 2;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = at,
		    .attach_btf_id = btf_id);
	int fd = bpf_prog_load(type, "kfloor", "GPL", insns, n, &o);

	if (fd < 0)
		fprintf(stderr, "kernel_floor: BPF_PROG_LOAD: %s\n",
			strerror(-fd));
	return fd;
}

static int perf_open(struct perf_event_attr *pa)
{
	return (int)syscall(__NR_perf_event_open, pa, -1, 0, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* An empty program of type on the perf event pa: the event's fd, or -1. */
static int perf_attach(struct perf_event_attr *pa, enum bpf_prog_type type)
{
	int prog = load(type, 0, 0, -1);
	int pfd = prog < 0 ? -1 : perf_open(pa);

	if (pfd < 0 || ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog) < 0 ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0) < 0)
		return -1;
	return pfd;
}

/* The perf type of a dynamic PMU ("kprobe"), or -1. */
static int pmu_type(const char *pmu)
{
	char path[256];
	int t = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	FILE *fp = fopen(path, "r");
	if (fp != NULL) {
		if (fscanf(fp, "%d", &t) != 1)
			t = -1;
		fclose(fp);
	}
	return t;
}

static int attach_tp(const char *cat, const char *ev)
{
	char path[512];
	long id = -1;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id",
		 cat, ev);
	FILE *fp = fopen(path, "r");
	if (fp == NULL || fscanf(fp, "%ld", &id) != 1) {
		fprintf(stderr, "kernel_floor: no tracepoint %s:%s\n", cat, ev);
		return -1;
	}
	fclose(fp);
	struct perf_event_attr pa = { .size = sizeof(pa),
		.type = PERF_TYPE_TRACEPOINT, .config = (uint64_t)id,
		.sample_period = 1, .wakeup_events = 1 };
	return perf_attach(&pa, BPF_PROG_TYPE_TRACEPOINT);
}

static int attach_kprobe(const char *func)
{
	int type = pmu_type("kprobe");
	struct perf_event_attr pa = { .size = sizeof(pa), .type = (uint32_t)type,
		.config1 = (uint64_t)(uintptr_t)func, .sample_period = 1,
		.wakeup_events = 1 };
	return type < 0 ? -1 : perf_attach(&pa, BPF_PROG_TYPE_KPROBE);
}

static int attach_fentry(const char *func)
{
	struct btf *vm = btf__load_vmlinux_btf();
	int id = vm ? btf__find_by_name_kind(vm, func, BTF_KIND_FUNC) : -1;

	if (id < 0) {
		fprintf(stderr, "kernel_floor: no function %s in BTF\n", func);
		return -1;
	}
	int prog = load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, (uint32_t)id,
			-1);
	return prog < 0 ? -1 : bpf_raw_tracepoint_open(NULL, prog);
}

int main(int argc, char **argv)
{
	int fd = -1, cmd = 0;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			cmd = i + 1;
			break;
		}
	if (cmd == 0 || cmd >= argc || argc < 4) {
		fprintf(stderr, "usage: kernel_floor tp|rawtp|fentry|kprobe "
			"ARGS -- CMD...\n");
		return 2;
	}
	if (strcmp(argv[1], "tp") == 0 && cmd == 5)
		fd = attach_tp(argv[2], argv[3]);
	else if (strcmp(argv[1], "rawtp") == 0 && cmd == 5) {
		int prog = load(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0,
				strtol(argv[3], NULL, 10));
		fd = prog < 0 ? -1 : bpf_raw_tracepoint_open(argv[2], prog);
	} else if (strcmp(argv[1], "fentry") == 0 && cmd == 4)
		fd = attach_fentry(argv[2]);
	else if (strcmp(argv[1], "kprobe") == 0 && cmd == 4)
		fd = attach_kprobe(argv[2]);
	if (fd < 0) {
		fprintf(stderr, "kernel_floor: cannot attach to %s %s: %s\n",
			argv[1], argv[2], strerror(errno));
		return 2;
	}
	pid_t child = fork();
	if (child == 0) {
		execvp(argv[cmd], argv + cmd);
		_exit(127);
	}
	int st = 0;
	waitpid(child, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
