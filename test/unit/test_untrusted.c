/* SPDX-License-Identifier: MIT */
/*
 * test_untrusted.c: opening a file another process names
 * (dt_untrusted.c).
 *
 * A regular file opens, through a symbolic link too, with its fstat();
 * a FIFO without a writer is refused at once (a plain open() would wait
 * forever: the check runs in a child killed after 5 s), as are a link to
 * a device (/dev/null), a directory and a missing name; the (dev, ino)
 * variant opens the file it names and refuses another with -ESTALE.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dt_untrusted.h"
#include "unit_check.h"

static char dir[] = "/tmp/dt_untrusted.XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static void check_regular(void)
{
	char file[64], link[64];
	struct stat st, want;
	int fd;

	path_of(file, sizeof(file), "file");
	path_of(link, sizeof(link), "link");
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "12345", 5) == 5);
	close(fd);
	CHECK(symlink(file, link) == 0 && stat(file, &want) == 0);

	fd = dt_open_untrusted(file, &st);
	CHECK(fd >= 0 && st.st_size == 5 && st.st_ino == want.st_ino);
	if (fd >= 0) {
		char buf[8];
		CHECK(read(fd, buf, sizeof(buf)) == 5);
		CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
		close(fd);
	}
	fd = dt_open_untrusted(link, &st);
	CHECK(fd >= 0 && st.st_ino == want.st_ino);
	if (fd >= 0)
		close(fd);
	fd = dt_open_untrusted_id(file, want.st_dev, want.st_ino, NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	CHECK(dt_open_untrusted_id(file, want.st_dev, want.st_ino + 1,
				   NULL) == -ESTALE);
}

/* In a child: a FIFO with no writer would block a plain open() forever. */
static void check_fifo_child(void)
{
	char fifo[64];

	path_of(fifo, sizeof(fifo), "fifo");
	CHECK(mkfifo(fifo, 0644) == 0);
	CHECK(dt_open_untrusted(fifo, NULL) == -ENXIO);
	CHECK(dt_open_untrusted_id(fifo, 0, 0, NULL) == -ENXIO);
	exit(failures ? 1 : 0);
}

static void check_fifo(void)
{
	int status = 0;
	pid_t child = fork();

	if (child == 0) {
		alarm(5);	/* a blocked open() ends here, failing */
		check_fifo_child();
	}
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void check_others(void)
{
	char devlink[64], missing[64];

	path_of(devlink, sizeof(devlink), "dev");
	path_of(missing, sizeof(missing), "missing");
	CHECK(symlink("/dev/null", devlink) == 0);
	CHECK(dt_open_untrusted(devlink, NULL) == -ENXIO);
	CHECK(dt_open_untrusted(dir, NULL) == -ENXIO);
	CHECK(dt_open_untrusted(missing, NULL) == -ENOENT);
}

static void cleanup(void)
{
	static const char *const names[] = { "file", "link", "fifo", "dev" };
	char path[64];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_of(path, sizeof(path), names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	check_regular();
	check_fifo();
	check_others();
	cleanup();
	return failures ? 1 : 0;
}
