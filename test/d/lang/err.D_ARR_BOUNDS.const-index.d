/* SPDX-License-Identifier: MIT */
/* A constant index past a declared array's bound is refused, as in DTrace
 * (5 elements: 0 to 4). */
int a[5];

BEGIN
{
	a[4] = 1;
	a[7] = 1;
	exit(0);
}
