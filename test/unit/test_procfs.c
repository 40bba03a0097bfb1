/* SPDX-License-Identifier: MIT */
/*
 * test_procfs.c: what is read of another process in /proc (dt_procfs.c).
 *
 * A child started under a command name with spaces and ')' and an
 * environment of its own: its state (sleeping, then a zombie), parent and
 * start time from /proc/PID/stat; the first of two values of a variable,
 * an empty one, a missing one, a name that is a prefix of another, and
 * an environment cut by a small buffer; paths as it names them
 * (/proc/PID/root, /proc/PID/cwd) and one that does not fit; its mount
 * namespace is this process's; a pid that is gone is told apart.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dt_procfs.h"
#include "unit_check.h"

#define ODD_NAME	"a ) S 1 (b"

static char dir[] = "/tmp/dt_procfs.XXXXXX";
static char link_path[64];

/* A child running sleep(1) through a link named ODD_NAME, which is then
 * its command name, with the environment env. */
static pid_t start_child(char *const env[])
{
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(link_path, sizeof(link_path), "%s/%s", dir, ODD_NAME);
	if (symlink("/bin/sleep", link_path) != 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		static char secs[] = "30";
		char *const argv[] = { link_path, secs, NULL };

		execve(link_path, argv, env);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {		/* until it runs sleep */
		char buf[64];
		FILE *f;
		bool done = false;

		snprintf(buf, sizeof(buf), "/proc/%d/comm", (int)pid);
		if ((f = fopen(buf, "r")) != NULL) {
			done = fgets(buf, sizeof(buf), f) != NULL &&
			       strncmp(buf, ODD_NAME "\n", 11) == 0;
			fclose(f);
		}
		if (done)
			break;
		usleep(10000);
	}
	return pid;
}

static void check_stat(pid_t pid)
{
	dt_procfs_stat_t st, self;

	CHECK(dt_procfs_stat(pid, &st) == 0);
	CHECK(st.state != '\0' && strchr("RSD", st.state) != NULL);
	CHECK(st.ppid == (int)getpid());
	CHECK(dt_procfs_stat(getpid(), &self) == 0 && self.state == 'R');
	CHECK(self.start_time > 0 && st.start_time >= self.start_time);
}

static void check_environ(pid_t pid)
{
	char buf[4096], small[24];
	const char *v;

	v = dt_procfs_getenv(pid, "DUP", buf, sizeof(buf));
	CHECK(v != NULL && strcmp(v, "first") == 0);
	v = dt_procfs_getenv(pid, "EMPTY", buf, sizeof(buf));
	CHECK(v != NULL && *v == '\0');
	CHECK(dt_procfs_getenv(pid, "MISSING", buf, sizeof(buf)) == NULL);
	CHECK(dt_procfs_getenv(pid, "LD", buf, sizeof(buf)) == NULL);
	v = dt_procfs_getenv(pid, "LD_LIBRARY_PATH", buf, sizeof(buf));
	CHECK(v != NULL && strcmp(v, "/opt/a lib:/x") == 0);
	/* "DUP=first\0DUP=second\0EMPTY=\0" cut at 23 bytes with its NUL */
	v = dt_procfs_getenv(pid, "DUP", small, sizeof(small));
	CHECK(v != NULL && strcmp(v, "first") == 0);
	CHECK(dt_procfs_getenv(pid, "LD_LIBRARY_PATH", small,
			       sizeof(small)) == NULL);
}

static void check_paths(pid_t pid)
{
	char buf[64], want[64], tiny[8];

	snprintf(want, sizeof(want), "/proc/%d/root/usr/lib/x.so", (int)pid);
	CHECK(dt_procfs_path(pid, "/usr/lib/x.so", buf, sizeof(buf)) &&
	      strcmp(buf, want) == 0);
	snprintf(want, sizeof(want), "/proc/%d/cwd/bin/app", (int)pid);
	CHECK(dt_procfs_path(pid, "bin/app", buf, sizeof(buf)) &&
	      strcmp(buf, want) == 0);
	CHECK(!dt_procfs_path(pid, "/usr/lib/x.so", tiny, sizeof(tiny)));
}

static void check_mntns(pid_t pid)
{
	dt_mntns_t self, child;
	struct stat sb;

	CHECK(dt_procfs_mntns(0, &self) == 0);
	CHECK(stat("/proc/self/ns/mnt", &sb) == 0 && sb.st_ino == self.ino &&
	      sb.st_dev == self.dev);
	CHECK(dt_procfs_mntns(pid, &child) == 0 && child.ino == self.ino);
	CHECK(dt_procfs_foreign(pid, NULL) == 0);
	CHECK(dt_procfs_foreign(pid, &self) == 0);
	dt_mntns_t other = { .dev = self.dev, .ino = self.ino + 1 };
	CHECK(dt_procfs_foreign(pid, &other) == 1);
}

static void check_gone(pid_t pid)
{
	dt_procfs_stat_t st;
	dt_mntns_t ns;
	char buf[256];

	kill(pid, SIGKILL);
	for (int i = 0; i < 500; i++) {	/* a zombie until reaped */
		if (dt_procfs_stat(pid, &st) == 0 && st.state == 'Z')
			break;
		usleep(10000);
	}
	CHECK(dt_procfs_stat(pid, &st) == 0 && st.state == 'Z');
	waitpid(pid, NULL, 0);
	CHECK(dt_procfs_stat(pid, &st) == -ENOENT);
	CHECK(dt_procfs_getenv(pid, "DUP", buf, sizeof(buf)) == NULL);
	CHECK(dt_procfs_mntns(pid, &ns) == -ENOENT);
	CHECK(dt_procfs_foreign(pid, NULL) == -1);
}

int main(void)
{
	static char e0[] = "DUP=first", e1[] = "DUP=second", e2[] = "EMPTY=",
		    e3[] = "LD_LIBRARY_PATH=/opt/a lib:/x";
	char *const env[] = { e0, e1, e2, e3, NULL };
	pid_t pid = start_child(env);

	CHECK(pid > 0);
	if (pid <= 0)
		return 1;
	check_stat(pid);
	check_environ(pid);
	check_paths(pid);
	check_mntns(pid);
	check_gone(pid);
	unlink(link_path);
	rmdir(dir);
	return failures != 0;
}
