/* SPDX-License-Identifier: MIT */
/* An index past the end of an array variable faults (an invalid address,
 * the index), and the clause's output is dropped. */
#pragma D option quiet

int a[4];

BEGIN
{
	i = 4;
	a[3] = 1;
	printf("not printed\n");
	a[i] = 2;
}

BEGIN
{
	printf("a[3] = %d\n", a[3]);
	exit(0);
}
