/* SPDX-License-Identifier: MIT */
/* long applies to integer and floating-point types only. */
struct s { int a; };
long struct s x;
BEGIN
{
	exit(0);
}
