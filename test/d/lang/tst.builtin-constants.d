/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* DTRACEFLT_* and the signals are known to every program, as DTrace's
 * libraries define them (Linux's signal numbers); a program's own
 * declaration hides them. */
inline int SIGUSR2 = 99;

BEGIN
{
	x = 0;
	printf("%d\n", 1 / x);
}

ERROR
/arg4 == DTRACEFLT_DIVZERO/
{
	printf("divzero %d %d %d %d\n", DTRACEFLT_UNKNOWN, DTRACEFLT_BADADDR,
	    DTRACEFLT_UPRIV, DTRACEFLT_LIBRARY);
}

BEGIN
{
	printf("%d %d %d %d %d %d\n", SIGHUP, SIGKILL, SIGUSR1, SIGTERM,
	    SIGCHLD, SIGSYS);
	printf("%d\n", SIGUSR2);
	exit(0);
}
