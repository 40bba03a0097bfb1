/* SPDX-License-Identifier: MIT */
/*
 * systarget: system calls and process events whose arguments and results
 * are known, for the syscall and proc providers' tests.
 *
 *   systarget
 *
 * In order: getppid() three times, read(2) of 77 bytes from /dev/zero,
 * openat() of /nonexistent/systarget (fails with ENOENT), then a child
 * created with fork() that exits with status 3, a thread that exits, a
 * SIGUSR1 sent to itself (caught) and an exec of /nonexistent/systarget
 * (fails).  Prints "done" at the end.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread_main(void *arg)
{
	return arg;
}

static void on_signal(int sig)
{
	(void)sig;
}

int main(void)
{
	char buf[77];
	pthread_t t;
	int status = 0;

	for (int i = 0; i < 3; i++)
		syscall(SYS_getppid);
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		return 2;
	close(fd);
	/* From the stack, which is mapped: a string of a page not touched
	 * yet cannot be read from a probe (no page fault there). */
	char path[] = "/nonexistent/systarget";
	if (openat(AT_FDCWD, path, O_RDONLY) >= 0)
		return 2;
	pid_t child = fork();
	if (child == 0)
		_exit(3);
	waitpid(child, &status, 0);
	if (pthread_create(&t, NULL, thread_main, NULL) != 0 ||
	    pthread_join(t, NULL) != 0)
		return 2;
	signal(SIGUSR1, on_signal);
	kill(getpid(), SIGUSR1);
	char *const argv[] = { "systarget", NULL };
	execv(path, argv);
	printf("done\n");
	return 0;
}
