/* SPDX-License-Identifier: MIT */
/* double double is no type. */
double double x;

BEGIN
{
	exit(0);
}
