/* SPDX-License-Identifier: MIT */
/* unsigned applies to integer types only, not to a typedef name. */
typedef int myint_t;
unsigned myint_t x;
BEGIN
{
	exit(0);
}
