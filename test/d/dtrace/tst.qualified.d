/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* The fully qualified names and globs select the same probes. */
dtrace:::BEGIN
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
}

dtrace::*:BEGIN
{
	printf("glob %s\n", probename);
}

:::END
{
	printf("%s\n", probename);
}

BEGIN
{
	exit(0);
}
