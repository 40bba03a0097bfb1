/* SPDX-License-Identifier: MIT */
/*
 * kernel_sigill: dies of a SIGILL, sent by the kernel's uprobe code or by
 * itself, so that a test sees whether dtrace reports the one and not the
 * other.  It prints "dying" first.
 *
 *   kernel_sigill HOW [FILE]  first waits for FILE to exist (60 s at most),
 *                          when given
 *   kernel_sigill kernel   makes the uretprobe system call outside the
 *                          uretprobe trampoline: the kernel's uprobe code
 *                          kills it with SIGILL (si_code SI_KERNEL), as
 *                          when it cannot follow a return probe
 *   kernel_sigill user     kill(getpid(), SIGILL) (SI_USER)
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_uretprobe
#define __NR_uretprobe 335	/* x86-64, Linux 6.11 */
#endif

static void wait_for(const char *file)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 6000 && access(file, F_OK) != 0; i++)
		nanosleep(&tick, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3)
		return 2;
	if (argc == 3)
		wait_for(argv[2]);
	printf("dying\n");
	fflush(stdout);
	if (strcmp(argv[1], "kernel") == 0)
		syscall(__NR_uretprobe);
	else if (strcmp(argv[1], "user") == 0)
		kill(getpid(), SIGILL);
	printf("still alive\n");
	return 1;
}
