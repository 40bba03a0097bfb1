/* @dtrace-opts: -q -n BEGIN{printf("option\n");} */
/* SPDX-License-Identifier: MIT */
/* -n and -s combine: both programs run, in the order of the command
 * line. */
BEGIN
{
	printf("script\n");
	exit(0);
}
