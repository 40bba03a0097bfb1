/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * END clauses run after exit(), in program order, even when they come
 * first in the program; BEGIN clauses run in program order.
 */
END
{
	printf("end 1\n");
}

BEGIN
{
	printf("begin 1\n");
}

END
{
	printf("end 2\n");
}

BEGIN
{
	printf("begin 2\n");
	exit(0);
}
