/* SPDX-License-Identifier: MIT */
/*
 * typed: a program built -O2 with debugging information, whose functions
 * take and return structures, for the tests of argument types from DWARF.
 *
 *   typed N    for i = 1 .. N: p = mk(i, i + 1) (a struct point on the
 *              heap), area(p, 2) returns x * y * 2; prints "done SUM"
 */
#pragma GCC optimize("O2")
#include <stdio.h>
#include <stdlib.h>

struct point {
	int x;
	int y;
	long tag;
};
typedef struct point point_t;

enum shade { DARK = 1, LIGHT = 2 };

__attribute__((noinline)) long area(struct point *p, int scale, enum shade s)
{
	__asm__ volatile("" ::: "memory");
	return (long)p->x * p->y * scale * (s == LIGHT ? 1 : 1);
}

__attribute__((noinline)) point_t *mk(int x, int y)
{
	point_t *p = malloc(sizeof(*p));

	if (p == NULL)
		exit(1);
	p->x = x;
	p->y = y;
	p->tag = 100 + x;
	return p;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long sum = 0;

	for (int i = 1; i <= n; i++) {
		point_t *p = mk(i, i + 1);

		sum += area(p, 2, LIGHT);
		free(p);
	}
	printf("done %ld\n", sum);
	return 0;
}
