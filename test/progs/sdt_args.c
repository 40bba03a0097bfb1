/* SPDX-License-Identifier: MIT */
/*
 * sdt_args.c: <sys/sdt.h> probes of every argument form compilers emit, for
 * the usdt provider's tests (built at -O1 by the Makefile; the tests also
 * build it at -O0 and -O2).  Every probe passes known values, so a test can
 * compare what dtrace prints with what the program passed:
 *
 *	sdt_test:consts		constants ($imm) of each size and sign
 *	sdt_test:regs		values computed at run time (registers at -O1
 *				and up, stack slots at -O0)
 *	sdt_test:globals	volatile globals (sym(%rip) forms)
 *	sdt_test:array		array elements at a run-time index
 *				(base, index and scale forms)
 *	sdt_test:stack		fields of a local structure in memory
 *	sdt_test:fields		fields of a global structure (sym+N(%rip))
 *	sdt_test:string		a string pointer
 *	sdt_test:many		ten arguments
 *	sdt_test:guarded	guarded by a semaphore; the guarded code counts
 *				how often it ran
 *
 * Usage: sdt_args [ITERATIONS [INTERVAL_MS]]; ITERATIONS 0 runs until
 * killed.  At exit it prints "guarded N semaphore S": how often the guarded
 * code ran and the semaphore's value at that moment; SIGUSR1 prints the
 * same line at once.  With SDT_ARGS_READY
 * set to a file name, it creates that file once the first iteration ran.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Semaphores, named as <sys/sdt.h> expects (with _SDT_HAS_SEMAPHORES every
 * probe of the file has one; only guarded's is tested by the program). */
#define SDT_SEMAPHORE(name) unsigned short sdt_test_##name##_semaphore \
	__attribute__((section(".probes"))) __attribute__((used))
SDT_SEMAPHORE(consts);
SDT_SEMAPHORE(regs);
SDT_SEMAPHORE(globals);
SDT_SEMAPHORE(array);
SDT_SEMAPHORE(stack);
SDT_SEMAPHORE(string);
SDT_SEMAPHORE(many);
SDT_SEMAPHORE(guarded);
SDT_SEMAPHORE(fields);

volatile int g_int = -7;
volatile long g_long = 0x123456789abcdef0L;
volatile unsigned char g_uchar = 200;
volatile signed char g_schar = -100;
volatile short g_short = -1234;
volatile unsigned int g_uint = 4000000000u;

volatile short g_shorts[8] = { 10, -20, 30, -40, 50, -60, 70, -80 };
volatile long g_longs[8] = { 1, -2, 3, -4, 5, -6, 7, -8 };
volatile int g_index = 5;

static volatile sig_atomic_t stop, report;
static unsigned long guarded_runs;

/* Values the optimiser cannot fold. */
__attribute__((noinline)) static long opaque(long v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

__attribute__((noinline)) static void fire_consts(void)
{
	STAP_PROBE6(sdt_test, consts, (signed char)-5, (short)-300,
		    (int)-70000, (long)-5000000000L, (unsigned char)250,
		    (unsigned short)65000);
}

__attribute__((noinline)) static void fire_regs(long i)
{
	signed char c = (signed char)opaque(-5 - i);
	short s = (short)opaque(-300 - i);
	int n = (int)opaque(-70000 - i);
	long l = opaque(-5000000000L - i);
	unsigned char uc = (unsigned char)opaque(250 + i);
	unsigned int u = (unsigned int)opaque(4000000000L + i);
	STAP_PROBE6(sdt_test, regs, c, s, n, l, uc, u);
}

__attribute__((noinline)) static void fire_globals(void)
{
	STAP_PROBE6(sdt_test, globals, g_int, g_long, g_uchar, g_schar,
		    g_short, g_uint);
}

__attribute__((noinline)) static void fire_array(void)
{
	int i = g_index;
	STAP_PROBE4(sdt_test, array, g_shorts[i], g_longs[i], g_shorts[i - 2],
		    g_shorts[i + 1]);
}

struct rec {
	int a;
	short b;
	long c;
	unsigned char d;
};

volatile struct rec g_rec = { -31, -32, 33, 34 };

__attribute__((noinline)) static void fire_fields(void)
{
	STAP_PROBE4(sdt_test, fields, g_rec.a, g_rec.b, g_rec.c, g_rec.d);
}

__attribute__((noinline)) static void fire_stack(long i)
{
	volatile struct rec r = { (int)opaque(-11 - i), (short)opaque(-22),
				  opaque(33000000000L + i),
				  (unsigned char)opaque(244) };
	STAP_PROBE4(sdt_test, stack, r.a, r.b, r.c, r.d);
}

__attribute__((noinline)) static void fire_string(const char *s, long i)
{
	STAP_PROBE2(sdt_test, string, s, i);
}

__attribute__((noinline)) static void fire_many(long i)
{
	STAP_PROBE12(sdt_test, many, i, i + 1, i + 2, i + 3, i + 4, i + 5,
		     i + 6, i + 7, i + 8, i + 9, i + 10, i + 11);
}

__attribute__((noinline)) static void fire_guarded(long i)
{
	if (sdt_test_guarded_semaphore) {
		guarded_runs++;
		STAP_PROBE2(sdt_test, guarded, i, guarded_runs);
	}
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stop = 1;
}

static void print_state(void)
{
	printf("guarded %lu semaphore %u\n", guarded_runs,
	       (unsigned)sdt_test_guarded_semaphore);
	fflush(stdout);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	long iterations = argc > 1 ? atol(argv[1]) : 1;
	long interval = argc > 2 ? atol(argv[2]) : 0;
	const char *ready = getenv("SDT_ARGS_READY");

	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGUSR1, on_signal);
	for (long i = 0; !stop && (iterations == 0 || i < iterations); i++) {
		fire_consts();
		fire_regs(i);
		fire_globals();
		fire_array();
		fire_stack(i);
		fire_fields();
		fire_string("hello sdt", i);
		fire_many(i);
		fire_guarded(i);
		if (i == 0 && ready != NULL) {
			FILE *f = fopen(ready, "w");
			if (f != NULL)
				fclose(f);
		}
		if (report) {
			report = 0;
			print_state();
		}
		if (interval > 0)
			sleep_ms(interval);
	}
	print_state();
	return 0;
}
