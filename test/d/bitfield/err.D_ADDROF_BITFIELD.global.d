/* SPDX-License-Identifier: MIT */
/* A bit-field of a global struct has no address. */
struct s {
	int a;
	int b : 3;
} v;

BEGIN
{
	trace(&v.a);
	trace(&v.b);
	exit(0);
}
