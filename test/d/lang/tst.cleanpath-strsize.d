/* @dtrace-opts: -q -x strsize=16 */
/* SPDX-License-Identifier: MIT */
/* cleanpath() stops, as DTrace's, where fewer than 5 bytes of strsize
 * are left (a step can write "/..c" and the NUL); a ".." gives room
 * back. */
BEGIN
{
	printf("[%s] [%s]\n", cleanpath("/abcdefghijkl"),
	    cleanpath("/a/./b/../../c"));
	exit(0);
}
