/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* An array of more dimensions than a fixed table would hold (17). */
int m[1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][1][3];

BEGIN
{
	printf("%d %d\n", sizeof(m), sizeof(m[0][0][0][0][0][0][0][0]));
	exit(0);
}
