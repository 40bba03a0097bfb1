/* SPDX-License-Identifier: MIT */
/* The bound of an array member is checked like a variable's, negative
 * indexes included. */
struct s { int m[2]; } v;

BEGIN
{
	trace(v.m[-1]);
	exit(0);
}
