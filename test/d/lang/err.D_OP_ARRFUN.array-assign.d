/* SPDX-License-Identifier: MIT */
/* An array is not assigned whole, as in C: not to another array
 * variable, nor to a new one. */
int a[3];
int b[3];

BEGIN
{
	a = b;
	exit(0);
}
