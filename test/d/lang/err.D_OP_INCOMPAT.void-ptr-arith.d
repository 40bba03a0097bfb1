/* SPDX-License-Identifier: MIT */
/* No arithmetic on void pointers. */
void *p;

BEGIN
{
	trace((int)(p + 1));
	exit(0);
}
