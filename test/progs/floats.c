/* SPDX-License-Identifier: MIT */
/*
 * floats: a program built with debugging information whose functions take
 * floating-point values, for the tests of D's float, double and long
 * double read from a traced process.
 *
 *   floats     weigh(&s, 3) with s = { 3.25, -1.5f, 1.0L/3, 7 }, then
 *              scale(2.5, &s), which returns 8.125; prints "done 7 8.125"
 */
#include <stdio.h>

struct sample {
	double d;
	float f;
	long double ld;
	int n;
};

__attribute__((noinline)) int weigh(struct sample *s, int k)
{
	__asm__ volatile("" ::: "memory");
	return s->n * k / k;
}

/* a double first: it is passed in xmm0, s in the first integer register */
__attribute__((noinline)) double scale(double by, struct sample *s)
{
	__asm__ volatile("" ::: "memory");
	return s->d * by;
}

int main(void)
{
	struct sample s = { 3.25, -1.5f, 1.0L / 3, 7 };
	int n = weigh(&s, 3);
	double r = scale(2.5, &s);

	printf("done %d %g\n", n, r);
	return 0;
}
