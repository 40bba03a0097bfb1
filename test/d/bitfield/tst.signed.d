/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A signed bit-field reads back what was stored in its bits, negative
 * when its top bit is set, whatever its width and unit (int, long). */
struct rec {
	int a : 3;
	int b : 7;
	int c : 14;
	long d : 35;
	int e : 22;
	int f : 32;
	int g : 16;
	int h : 8;
} v;

BEGIN
{
	v.a = 3; v.b = 0x3f; v.c = 0x1fff; v.d = 0x3ffffffff;
	v.e = 0x1fffff; v.f = 0x7fffffff; v.g = 0x7fff; v.h = 0x7f;
	printf("%d %d %d %d %d %d %d %d\n", v.a, v.b, v.c, v.d, v.e, v.f, v.g,
	       v.h);
	v.a = 7; v.b = 0x75; v.c = 0x3555; v.d = 0x755555555;
	v.e = 0x355555; v.f = 0xf5555555; v.g = 0xf555; v.h = 0xf5;
	printf("%d %d %d %d %d %d %d %d\n", v.a, v.b, v.c, v.d, v.e, v.f, v.g,
	       v.h);
	exit(0);
}
