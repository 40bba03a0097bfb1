/* @dtrace-opts: -q -C */
/* SPDX-License-Identifier: MIT */
/* -C takes the system's C headers: their prototypes and inline functions
 * are skipped, GNU C's keywords vanish, their types and macros serve. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <netinet/in.h>

BEGIN
{
	printf("%d %d %d %d\n", EINTR, ENOENT, SIGKILL, SIGSEGV);
	printf("%d %d %d %d\n", sizeof(pid_t), sizeof(struct sockaddr_in),
	    sizeof(fd_set), offsetof(struct sockaddr_in, sin_addr));
	printf("%d %d\n", sizeof(siginfo_t), sizeof(struct sigaction));
	exit(0);
}
