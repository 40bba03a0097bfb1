/* @dtrace-opts: -q -x strsize=4 */
/* SPDX-License-Identifier: MIT */
/* A literal of strsize characters fits a string, as in DTrace. */
BEGIN
{
	printf("[%s] %d\n", "abcd", strlen("abcd"));
	exit(0);
}
