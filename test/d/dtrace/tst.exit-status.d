/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* exit(n) makes dtrace exit with status n, after END has run. */
BEGIN
{
	printf("begin\n");
	exit(3);
}

END
{
	printf("end\n");
}
