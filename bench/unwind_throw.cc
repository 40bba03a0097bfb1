/* SPDX-License-Identifier: MIT */
/*
 * unwind_throw: a C++ call chain that throws and catches inside itself,
 * for bench/ustack.sh's comparison of the unwinders.
 *
 *   unwind_throw N    N times: outer -> middle (try) -> inner -> thrower,
 *                     which throws; middle's handler calls handled()
 *                     (a stack from inside a catch block) and the
 *                     throw's own stack passes __cxa_throw
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define OPAQUE() __asm__ volatile("" ::: "memory")

volatile long sink;

extern "C" __attribute__((noinline)) void handled(long n)
{
	sink += n;
	OPAQUE();
}

__attribute__((noinline)) static void thrower(long n)
{
	if (n >= 0)
		throw std::runtime_error("thrown");
	OPAQUE();
}

__attribute__((noinline)) static void inner(long n)
{
	thrower(n + 1);
	OPAQUE();
}

__attribute__((noinline)) static void middle(long n)
{
	try {
		inner(n);
	} catch (const std::exception &e) {
		handled(n);
	}
	OPAQUE();
}

__attribute__((noinline)) static void outer(long n)
{
	middle(n * 2);
	OPAQUE();
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;

	for (long i = 0; i < n; i++)
		outer(i);
	std::printf("done\n");
	return 0;
}
