/* SPDX-License-Identifier: MIT */
/*
 * pidtarget: a program for the pid provider's tests, with functions whose
 * arguments and return values are known.
 *
 *   pidtarget [-s USEC] [-w] [-l LIB] [-v] N
 *
 * Calls, for i = 0 .. N-1 (N = 0: forever):
 *   add(i, i + 1)                 returns 2i + 1
 *   sum8(1, 2, 3, 4, 5, 6, 7, 8)  returns 36 (two arguments on the stack)
 *   alias_fn(i) / pt_alias(i)     one function with two names, returns i * 2
 *   LIB's lib_square(i)           with -l: dlopen'ed before the loop starts
 *   vex_fn()                      with -v and a CPU with AVX: starts with a
 *                                 VEX-encoded instruction, returns 7
 * sleeping USEC microseconds between iterations.  With -w it first waits
 * for a line on stdin (so a test can attach with -p before it runs).
 * Prints "pid PID" first (on stderr) and "done TOTAL" at the end, TOTAL the
 * sum of every return value: a test checks it to see that tracing did not
 * change what the program computes.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Each function has a side effect the compiler cannot see through (an
 * empty asm with a memory clobber): without it GCC finds sum8 const and
 * calls it once, before the loop. */
#define OPAQUE() __asm__ volatile("" ::: "memory")

__attribute__((noinline)) int add(int a, int b)
{
	OPAQUE();
	return a + b;
}

__attribute__((noinline)) long sum8(long a, long b, long c, long d, long e,
				    long f, long g, long h)
{
	OPAQUE();
	return a + b + c + d + e + f + g + h;
}

__attribute__((noinline)) int alias_fn(int x)
{
	OPAQUE();
	return x * 2;
}
int pt_alias(int x) __attribute__((alias("alias_fn")));

/* vex_fn: vpxor at the entry (VEX-encoded), then a plain return of 7. */
int vex_fn(void);
__asm__(".text\n"
	".globl vex_fn\n"
	".type vex_fn, @function\n"
	"vex_fn:\n"
	"	vpxor %xmm1, %xmm1, %xmm1\n"
	"	movl $7, %eax\n"
	"	ret\n"
	".size vex_fn, .-vex_fn\n");

static int (*load_lib(const char *path))(int)
{
	void *h = dlopen(path, RTLD_NOW);
	void *fn;

	if (h == NULL || (fn = dlsym(h, "lib_square")) == NULL) {
		fprintf(stderr, "pidtarget: %s\n", dlerror());
		exit(2);
	}
	return (int (*)(int))fn;
}

int main(int argc, char **argv)
{
	int (*lib_square)(int) = NULL;
	long total = 0, i, n;
	int opt, usec = 0, wait_stdin = 0, use_vex = 0;

	while ((opt = getopt(argc, argv, "s:wl:v")) != -1) {
		switch (opt) {
		case 's': usec = atoi(optarg); break;
		case 'w': wait_stdin = 1; break;
		case 'l': lib_square = load_lib(optarg); break;
		case 'v': use_vex = __builtin_cpu_supports("avx"); break;
		default:
			fprintf(stderr, "usage: pidtarget [-s USEC] [-w] "
				"[-l LIB] [-v] N\n");
			return 2;
		}
	}
	n = optind < argc ? atol(argv[optind]) : 1;
	fprintf(stderr, "pid %d\n", (int)getpid());
	if (wait_stdin) {
		char line[64];

		if (fgets(line, sizeof(line), stdin) == NULL)
			return 2;
	}
	for (i = 0; n == 0 || i < n; i++) {
		total += add((int)i, (int)i + 1);
		total += sum8(1, 2, 3, 4, 5, 6, 7, 8);
		total += pt_alias((int)i);
		if (lib_square)
			total += lib_square((int)i);
		if (use_vex)
			total += vex_fn();
		if (usec)
			usleep(usec);
	}
	printf("done %ld\n", total);
	return 0;
}
