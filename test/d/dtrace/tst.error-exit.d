/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * exit() in the ERROR clause that a fault ran ends the firing there, as an
 * exit() of the firing's own clause does: the later BEGIN clause does not
 * run, END does, and the status is the ERROR clause's.
 */
BEGIN
{
	x = 0;
	y = 1 / x;
}

ERROR
{
	printf("error\n");
	exit(3);
}

BEGIN
{
	printf("not reached\n");
}

END
{
	printf("end\n");
}
