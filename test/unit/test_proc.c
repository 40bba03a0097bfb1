/* SPDX-License-Identifier: MIT */
/*
 * test_proc.c: dt_proc with real processes: command splitting, -c stops the
 * command at its entry point with its libraries mapped, release lets it
 * run, exits are reported with DTrace's wording, bad commands and pids get
 * DTrace's messages, and fini leaves no child behind.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dt_impl.h"
#include "dt_proc.h"
#include "unit_check.h"
#include "unit_proc.h"

static void test_split(void)
{
	char **av = dt_proc_split("  prog a 'b c' \"d \\\"e\\\"\" f\\ g ''");

	CHECK(av != NULL);
	if (av) {
		CHECK(strcmp(av[0], "prog") == 0);
		CHECK(strcmp(av[1], "a") == 0);
		CHECK(strcmp(av[2], "b c") == 0);
		CHECK(strcmp(av[3], "d \"e\"") == 0);
		CHECK(strcmp(av[4], "f g") == 0);
		CHECK(strcmp(av[5], "") == 0);
		CHECK(av[6] == NULL);
	}
	dt_proc_argv_free(av);
	CHECK(dt_proc_split("   ") == NULL);
	CHECK(dt_proc_split("a 'b") == NULL);
}

static char proc_state_char(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	rp = strrchr(buf, ')');
	return rp ? rp[2] : 0;
}

static bool maps_have(pid_t pid, const char *what)
{
	char path[64], line[1024];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

/* Wait (up to 5 s) for the exit of a target to be reported. */
static bool wait_exit_msg(dtrace_hdl_t *dtp, char *msg, size_t len)
{
	struct pollfd pfd = { .fd = dt_proc_fd(dtp), .events = POLLIN };
	int i;

	for (i = 0; i < 50; i++) {
		if (dt_proc_check(dtp, msg, len) == 1)
			return true;
		poll(&pfd, 1, 100);
	}
	return false;
}

static void test_create(void)
{
	dtrace_hdl_t dtp = { 0 };
	char msg[128], want[128];
	pid_t pid = 0;

	CHECK(dt_proc_create(&dtp, "/bin/sh -c 'exit 3'", &pid) == 0);
	CHECK(pid > 0 && dtp.target == pid);
	CHECK(proc_state_char(pid) == 't');	/* stopped under ptrace */
	CHECK(maps_have(pid, "libc.so.6"));	/* libraries are mapped */
	CHECK(dt_proc_fd(&dtp) >= 0);
	CHECK(dt_proc_check(&dtp, msg, sizeof(msg)) == 0);
	CHECK(!dt_proc_done(&dtp));
	CHECK(dt_proc_release(&dtp) == 0);
	CHECK(wait_exit_msg(&dtp, msg, sizeof(msg)));
	snprintf(want, sizeof(want), "pid %d exited with status 3", (int)pid);
	CHECK(strcmp(msg, want) == 0);
	CHECK(dt_proc_done(&dtp));
	CHECK(dt_proc_exit_status(&dtp) == 3);
	dt_proc_fini(&dtp);

	memset(&dtp, 0, sizeof(dtp));
	CHECK(dt_proc_create(&dtp, "/bin/true", &pid) == 0);
	CHECK(dt_proc_release(&dtp) == 0);
	CHECK(wait_exit_msg(&dtp, msg, sizeof(msg)));
	snprintf(want, sizeof(want), "pid %d has exited", (int)pid);
	CHECK(strcmp(msg, want) == 0);
	dt_proc_fini(&dtp);

	/* killed by a signal */
	memset(&dtp, 0, sizeof(dtp));
	CHECK(dt_proc_create(&dtp, "/bin/sh -c 'kill -9 $$'", &pid) == 0);
	CHECK(dt_proc_release(&dtp) == 0);
	CHECK(wait_exit_msg(&dtp, msg, sizeof(msg)));
	snprintf(want, sizeof(want), "pid %d terminated by SIGKILL", (int)pid);
	CHECK(strcmp(msg, want) == 0);
	CHECK(dt_proc_exit_status(&dtp) == 128 + SIGKILL);
	dt_proc_fini(&dtp);

	/* never released: fini kills and reaps it */
	memset(&dtp, 0, sizeof(dtp));
	CHECK(dt_proc_create(&dtp, "/bin/sleep 100", &pid) == 0);
	dt_proc_fini(&dtp);
	CHECK(kill(pid, 0) != 0 && errno == ESRCH);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
}

static void test_bad(void)
{
	dtrace_hdl_t dtp = { 0 };
	pid_t pid;

	CHECK(dt_proc_create(&dtp, "/nonexistent/prog arg", &pid) == -1);
	CHECK(strcmp(dtp.errmsg, "failed to execute /nonexistent/prog: "
		     "No such file or directory") == 0);
	CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
	CHECK(dt_proc_count(&dtp) == 0);
	CHECK(dt_proc_grab(&dtp, 999999999) == -1);
	CHECK(strcmp(dtp.errmsg, "failed to grab pid 999999999: No such "
		     "process") == 0);
	dt_proc_fini(&dtp);
}

static void test_grab(void)
{
	dtrace_hdl_t dtp = { 0 };
	char msg[128], want[128];
	pid_t child = unit_fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(dt_proc_grab(&dtp, child) == 0);
	CHECK(dtp.target == child);
	CHECK(dt_proc_check(&dtp, msg, sizeof(msg)) == 0);
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);
	CHECK(wait_exit_msg(&dtp, msg, sizeof(msg)));
	snprintf(want, sizeof(want), "pid %d has exited", (int)child);
	CHECK(strcmp(msg, want) == 0);
	CHECK(dt_proc_done(&dtp));
	dt_proc_fini(&dtp);
}

int main(void)
{
	test_split();
	test_create();
	test_bad();
	test_grab();
	if (failures)
		fprintf(stderr, "test_proc: %d failures\n", failures);
	return failures ? 1 : 0;
}
