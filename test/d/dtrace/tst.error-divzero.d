/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * A run-time fault aborts its clause only: the ERROR clause runs at once
 * with arg4 the fault type (DTRACEFLT_DIVZERO is 4), then the next clause
 * of the same probe runs and tracing goes on.  The error message goes to
 * stderr (checked by test/sh/providers/dtrace-provider.sh).
 */
BEGIN
{
	x = 0;
	printf("%d\n", 1 / x);
	printf("not reached\n");
}

ERROR
{
	printf("error fault=%d\n", arg4);
}

BEGIN
{
	printf("after\n");
	exit(0);
}
