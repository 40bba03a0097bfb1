/* SPDX-License-Identifier: MIT */
/*
 * unit_proc.h: the processes a unit test starts.  unit_fork() is fork()
 * for them: the child dies with the test, even when the test crashes
 * before it kills its children, so that no process is left behind.
 */
#ifndef UNIT_PROC_H
#define UNIT_PROC_H

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <unistd.h>

static inline pid_t unit_fork(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
			 getppid() != parent))
		_exit(127);
	return pid;
}

#endif /* UNIT_PROC_H */
