/* @dtrace-opts: -q -x strsize=16 */
/* SPDX-License-Identifier: MIT */
/* cleanpath() stops, as DTrace's, where fewer than 5 bytes of the
 * string's room (strsize characters and the NUL) are left (a step can write "/..c" and the NUL); a ".." gives room
 * back. */
BEGIN
{
	printf("[%s] [%s]\n", cleanpath("/abcdefghijkl"),
	    cleanpath("/a/./b/../../c"));
	exit(0);
}
