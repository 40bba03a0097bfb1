/* SPDX-License-Identifier: MIT */
/*
 * test_rtld.c: dt_rtld_hook() and dt_rtld_hook_sites() on this process's
 * own dynamic loader: every site found is a direct call (E8) or jump (E9)
 * whose target is the hook (_r_debug.r_brk), read back from the file's
 * bytes; there is at least one; a file without such calls and a missing
 * file are errors.  The same sites are found while uprobes that no process
 * filter restricts sit on them (as another dtrace's exec watch places
 * them), which put int3 into every executable mapping of the loader.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "dt_rtld.h"
#include "unit_check.h"

/* The site at file offset off of fd branches to file offset hook (the text
 * is mapped at one bias, so file offsets stand for addresses). */
static int branches_to_hook(int fd, uint64_t off, uint64_t hook)
{
	uint8_t b[5];
	int32_t rel;

	if (pread(fd, b, sizeof(b), (off_t)off) != (ssize_t)sizeof(b))
		return 0;
	if (b[0] != 0xe8 && b[0] != 0xe9)
		return 0;
	memcpy(&rel, b + 1, sizeof(rel));
	return off + 5 + (uint64_t)(int64_t)rel == hook;
}

/* A uprobe on path at file offset off for every process (CPU 0's event
 * stands for all: the breakpoint is in the code, not the CPU); the perf
 * event's descriptor, or -1 when this machine cannot have one. */
static int uprobe_everywhere(const char *path, uint64_t off)
{
	struct perf_event_attr attr;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	int type = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)path;
	attr.config2 = off;
	attr.sample_period = 1;
	return (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* With uprobes on every site, the sweep finds the same n sites. */
static void check_under_uprobes(const char *path, uint64_t hook,
				const uint64_t *sites, int n)
{
	int fds[64], nfds = 0;
	uint64_t again[64];

	for (int i = 0; i < n; i++)
		if ((fds[nfds] = uprobe_everywhere(path, sites[i])) >= 0)
			nfds++;
	if (nfds == 0) {
		printf("no uprobe could be placed: not checked under uprobes\n");
		return;
	}
	int m = dt_rtld_hook_sites(path, hook, again, 64);
	printf("with %d uprobes on them: %d call sites\n", nfds, m);
	CHECK(m == n);
	for (int i = 0; i < n && m == n; i++)
		CHECK(again[i] == sites[i]);
	while (nfds > 0)
		close(fds[--nfds]);
}

int main(void)
{
	char path[PATH_MAX];
	uint64_t hook, sites[64];

	if (dt_rtld_hook(path, sizeof(path), &hook) < 0) {
		fprintf(stderr, "no dynamic loader hook in this process\n");
		return 77;
	}
	int n = dt_rtld_hook_sites(path, hook, sites, 64);
	printf("%s: hook at 0x%llx, %d call sites\n", path,
	       (unsigned long long)hook, n);
	CHECK(n > 0);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	for (int i = 0; i < n && fd >= 0; i++)
		CHECK(branches_to_hook(fd, sites[i], hook));
	if (fd >= 0)
		close(fd);
	if (n > 0)
		check_under_uprobes(path, hook, sites, n);

	/* Too small a buffer, no such file, an offset outside the code. */
	if (n > 1)
		CHECK(dt_rtld_hook_sites(path, hook, sites, 1) == -E2BIG);
	CHECK(dt_rtld_hook_sites("/nonexistent/ld.so", hook, sites, 64) ==
	      -ENOENT);
	CHECK(dt_rtld_hook_sites(path, 0, sites, 64) < 0);
	CHECK(dt_rtld_hook_sites("/etc/passwd", 0x100, sites, 64) < 0);

	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
