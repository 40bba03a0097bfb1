/* SPDX-License-Identifier: MIT */
/* A variable of 4 GB: refused when compiling, not when its map is made
 * (a BPF map value holds at most INT_MAX bytes). */
int a[1000000000];

BEGIN
{
	a[1] = 1;
	exit(0);
}
