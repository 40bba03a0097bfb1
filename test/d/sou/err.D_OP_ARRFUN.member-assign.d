/* SPDX-License-Identifier: MIT */
/* An array member is not assigned whole either (its struct is). */
struct s { int m[2]; } v, w;

BEGIN
{
	v = w;
	v.m = w.m;
	exit(0);
}
