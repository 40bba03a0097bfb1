/* SPDX-License-Identifier: MIT */
/* -x printsize, as Oracle's DTrace: print() shows the members of a struct
 * that start within that many bytes (rounded up to 8; 0 or more than 64k
 * is the default, 8192); the first beyond ends it with a "..." line at
 * the depth of the member printed last.  setopt() changes it for the
 * print()s after. */
#pragma D option quiet
#pragma D option printsize=8
struct test_struct {
	int a;
	char b[5];
	union { unsigned char c; unsigned long d; } u;
	struct { void *e; unsigned long f; } s;
	int g;
};
struct test_struct t;
BEGIN
{
	t.a = 1; t.b[0] = 't'; t.u.d = 12345678; t.s.f = 100; t.g = 1;
	print(t);
	setopt("printsize", "24");
	print(t);
	setopt("printsize", "17");
	print(t);
	setopt("printsize", "0");
	print(t);
	exit(0);
}
