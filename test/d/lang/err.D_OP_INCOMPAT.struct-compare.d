/* SPDX-License-Identifier: MIT */
/* A struct compared with an integer: operands of incompatible types. */
struct s { int a; };
struct s v;

BEGIN
{
	x = v == 1;
}
