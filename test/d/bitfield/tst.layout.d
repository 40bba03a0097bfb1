/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Bit-fields are laid out as GCC lays them out on x86_64: packed into a
 * unit of their type while they fit, a new unit when one would cross its
 * boundary, `: 0` closing the unit, unnamed fields padding without
 * aligning the struct; the sizes are GCC's. */
struct one { int a : 1; };
struct two { int a : 1; int b : 3; };
struct three { int c : 12; int a : 10; int b : 3; };
struct cross { int a : 20; int b : 3; int c : 12; };
struct longs { long c : 32; long long d : 9; int e : 1; };
struct mixed { char a : 2; short b : 12; long c : 32; };
struct full { int a : 30; int b : 30; int c : 32; };
struct zero { char a; int : 0; char b; };
struct zerolong { char a : 3; long : 0; char b : 2; };
struct pad { char a; int : 5; char b; };
struct lead { int : 5; char a; };
union u { int a : 3; long b : 40; char c; };
struct wide { char c; int x : 20; short y : 10; char d; long long w : 50; };

BEGIN
{
	printf("%d %d %d %d %d %d %d\n", sizeof(struct one),
	       sizeof(struct two), sizeof(struct three), sizeof(struct cross),
	       sizeof(struct longs), sizeof(struct mixed), sizeof(struct full));
	printf("%d %d %d %d %d %d\n", sizeof(struct zero),
	       sizeof(struct zerolong), sizeof(struct pad), sizeof(struct lead),
	       sizeof(union u), sizeof(struct wide));
	exit(0);
}
