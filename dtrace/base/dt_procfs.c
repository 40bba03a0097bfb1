/* SPDX-License-Identifier: MIT */
/*
 * dt_procfs.c: reading another process in /proc (dt_procfs.h).
 *
 * A file of /proc/PID is read with one read(): the kernel fills what it
 * can of the buffer at once, and one more read() to see the end would
 * cost each exec the gate looks at a system call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_procfs.h"

#define PROCFS_STAT_MAX		1024	/* /proc/PID/stat is about 350 */
#define PROCFS_STAT_START	22	/* the field of the start time */

/* /proc/PID/FILE into buf, NUL-terminated: its length or -errno. */
static ssize_t procfs_read(pid_t pid, const char *file, char *buf,
			   size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

int dt_procfs_stat(pid_t pid, dt_procfs_stat_t *st)
{
	char buf[PROCFS_STAT_MAX];
	unsigned long long start;
	ssize_t n = procfs_read(pid, "stat", buf, sizeof(buf));
	const char *p;

	if (n <= 0)
		return n < 0 ? (int)n : -EINVAL;
	/* "pid (comm) state ppid ...": comm may hold anything, even ')' */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c %d", &st->state, &st->ppid) != 2)
		return -EINVAL;
	/* from the ')' that ends field 2, each space is the one before the
	 * next field: the last one found, before the start time */
	for (int field = 2; p != NULL && field < PROCFS_STAT_START; field++)
		p = strchr(p + 1, ' ');
	if (p == NULL || sscanf(p + 1, "%llu", &start) != 1)
		return -EINVAL;
	st->start_time = start;
	return 0;
}

const char *dt_procfs_getenv(pid_t pid, const char *name, char *buf,
			     size_t size)
{
	size_t len = strlen(name);
	ssize_t n = procfs_read(pid, "environ", buf, size);

	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (strncmp(buf + i, name, len) == 0 && buf[i + len] == '=')
			return buf + i + len + 1;
	return NULL;
}

bool dt_procfs_path(pid_t pid, const char *path, char *buf, size_t size)
{
	int n = path[0] == '/' ?
		snprintf(buf, size, "/proc/%d/root%s", (int)pid, path) :
		snprintf(buf, size, "/proc/%d/cwd/%s", (int)pid, path);

	return n >= 0 && (size_t)n < size;
}

int dt_procfs_mntns(pid_t pid, dt_mntns_t *ns)
{
	char path[64];
	struct stat sb;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	else
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	if (stat(path, &sb) != 0)
		return -errno;
	*ns = (dt_mntns_t){ .dev = sb.st_dev, .ino = sb.st_ino };
	return 0;
}

int dt_procfs_foreign(pid_t pid, const dt_mntns_t *home)
{
	dt_mntns_t self, ns;

	if (home == NULL && dt_procfs_mntns(0, &self) != 0)
		return -1;
	if (dt_procfs_mntns(pid, &ns) != 0)
		return -1;
	if (home == NULL)
		home = &self;
	return ns.dev != home->dev || ns.ino != home->ino;
}
