/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A bit-field is read as C promotes it: int when int holds every value of
 * its width (unsigned ones too), unsigned int for an unsigned 32-bit one,
 * its own type when wider; a store keeps the low bits only. */
struct s {
	unsigned a : 3;
	unsigned b : 32;
	long c : 33;
	unsigned long d : 40;
	char e : 2;
	int f : 1;
	int g : 15;
	int h : 31;
} x;

BEGIN
{
	x.a = -1; x.b = -1; x.c = -1; x.d = -1; x.e = -1;
	printf("%d %d %d %d %d\n", sizeof(x.a + 0), sizeof(x.b + 0),
	       sizeof(x.c + 0), sizeof(x.d + 0), sizeof(x.e + 0));
	printf("%d %u %d %u %d\n", x.a, x.b, x.c, x.d, x.e);
	printf("%d %d\n", x.a - 8, x.b - 8 > 0);
	x.f = 256; x.g = 65536; x.h = 4294967296;
	printf("%d %d %d\n", x.f, x.g, x.h);
	exit(0);
}
