/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* The first exit() wins: the clauses after it in the same firing do not
 * run, and a later exit(n) does not change the status. */
BEGIN
{
	exit(0);
}

BEGIN
{
	printf("second clause ran\n");
	exit(3);
}
