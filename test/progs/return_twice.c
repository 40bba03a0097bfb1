/* SPDX-License-Identifier: MIT */
/*
 * return_twice: calls the functions that return twice, or that return by a
 * path other than their own ret (setjmp and longjmp, vfork, getcontext and
 * swapcontext), and threads, so that a test sees whether return probes on
 * them change what the program does.  Each mode prints one line whose text
 * says the run went as it should, and exits 0.
 *
 *   return_twice setjmp N      N longjmps to a _setjmp: "setjmp N"
 *   return_twice sigsetjmp N   the same through sigsetjmp/siglongjmp
 *   return_twice vfork N       N vfork + _exit children: "vfork N"
 *   return_twice spawn N       N posix_spawn of /bin/true: "spawn N"
 *   return_twice context N     N getcontext/swapcontext round trips:
 *                              "context N"
 *   return_twice threads N     N threads created and joined, each ending
 *                              with pthread_exit: "threads N"
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

extern char **environ;

static jmp_buf jb;
static sigjmp_buf sjb;

static void __attribute__((noinline)) jump_back(int v)
{
	longjmp(jb, v);
}

static int do_setjmp(int n)
{
	volatile int count = 0;

	if (setjmp(jb) < n)
		jump_back(++count);
	return count;
}

static int do_sigsetjmp(int n)
{
	volatile int count = 0;

	if (sigsetjmp(sjb, 1) < n)
		siglongjmp(sjb, ++count);
	return count;
}

static int do_vfork(int n)
{
	int done = 0;

	for (int i = 0; i < n; i++) {
		int st;
		pid_t pid = vfork();

		if (pid == 0)
			_exit(7);
		if (pid < 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 7)
			break;
		done++;
	}
	return done;
}

static int do_spawn(int n)
{
	char *argv[] = { "true", NULL };
	int done = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid;
		int st;

		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv,
				environ) != 0 ||
		    waitpid(pid, &st, 0) != pid || st != 0)
			break;
		done++;
	}
	return done;
}

static ucontext_t main_ctx, fn_ctx;
static volatile int ctx_count;

static void ctx_fn(void)
{
	for (;;) {
		ctx_count++;
		swapcontext(&fn_ctx, &main_ctx);
	}
}

static int do_context(int n)
{
	static char stack[64 * 1024];
	volatile int resumed = 0;

	getcontext(&fn_ctx);
	fn_ctx.uc_stack.ss_sp = stack;
	fn_ctx.uc_stack.ss_size = sizeof(stack);
	fn_ctx.uc_link = NULL;
	makecontext(&fn_ctx, ctx_fn, 0);
	for (int i = 0; i < n; i++)
		swapcontext(&main_ctx, &fn_ctx);
	/* getcontext returns a second time when its context is set */
	getcontext(&main_ctx);
	if (!resumed) {
		resumed = 1;
		setcontext(&main_ctx);
	}
	return ctx_count;
}

/* pthread_exit unwinds to start_thread, which set a jmp_buf to land in */
static void *thread_fn(void *arg)
{
	pthread_exit(arg);
}

static int do_threads(int n)
{
	int done = 0;

	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *ret;

		if (pthread_create(&t, NULL, thread_fn, &done) != 0 ||
		    pthread_join(t, &ret) != 0 || ret != &done)
			break;
		done++;
	}
	return done;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int);
	} modes[] = {
		{ "setjmp", do_setjmp }, { "sigsetjmp", do_sigsetjmp },
		{ "vfork", do_vfork }, { "spawn", do_spawn },
		{ "context", do_context }, { "threads", do_threads },
	};

	if (argc != 3) {
		fprintf(stderr, "usage: return_twice MODE N\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(*modes); i++)
		if (strcmp(argv[1], modes[i].name) == 0) {
			printf("%s %d\n", argv[1], modes[i].run(atoi(argv[2])));
			return 0;
		}
	fprintf(stderr, "return_twice: no mode %s\n", argv[1]);
	return 2;
}
