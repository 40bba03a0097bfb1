/* SPDX-License-Identifier: MIT */
/*
 * dt_untrusted.c: open a file that another process names (dt_untrusted.h).
 *
 * Why not stat() then open(): between the two, the path's owner can swap
 * in a FIFO (rename(2) is atomic), and root's open() then waits for a
 * writer that never comes; O_NONBLOCK alone still opens whatever is there
 * (a device through a symbolic link).  An O_PATH descriptor names the file
 * without opening it: its fstat() is the truth about that one inode, and
 * reopening it through /proc/self/fd/N opens that inode, whatever the name
 * has become since.  Where /proc is not mounted, the path is opened again,
 * non-blocking, and the result must be the inode the O_PATH descriptor
 * saw.
 *
 * Compiled into the engine and into libdtcommon.a: nothing of the engine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "dt_untrusted.h"

#define UNTRUSTED_READ_FLAGS	(O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)

static int same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Open for reading the regular file the O_PATH descriptor pfd (a path's
 * name, checked as *want) holds. */
static int reopen(int pfd, const char *path, const struct stat *want,
		  struct stat *st)
{
	char self[32];
	int fd, err;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, UNTRUSTED_READ_FLAGS);
	if (fd < 0 && errno == ENOENT)	/* no /proc: by name once more */
		fd = open(path, UNTRUSTED_READ_FLAGS);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st->st_mode) || !same_inode(st, want)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int dt_open_untrusted(const char *path, struct stat *st)
{
	struct stat want, got;
	int pfd, fd;

	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &want) != 0) {
		fd = -errno;
	} else if (!S_ISREG(want.st_mode)) {
		fd = -ENXIO;	/* a FIFO, a device, a socket, a directory */
	} else {
		fd = reopen(pfd, path, &want, &got);
		if (fd >= 0 && st != NULL)
			*st = got;
	}
	close(pfd);
	return fd;
}

int dt_open_untrusted_id(const char *path, dev_t dev, ino_t ino,
			 struct stat *st)
{
	struct stat sb;
	int fd = dt_open_untrusted(path, &sb);

	if (fd < 0)
		return fd;
	if (sb.st_dev != dev || sb.st_ino != ino) {
		close(fd);
		return -ESTALE;
	}
	if (st != NULL)
		*st = sb;
	return fd;
}
