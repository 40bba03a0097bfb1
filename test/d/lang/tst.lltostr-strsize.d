/* @dtrace-opts: -q -x strsize=8 */
/* SPDX-License-Identifier: MIT */
/* lltostr() with the smallest strsize: both forms write their digits
 * where they fit whatever strsize, and the result is cut at strsize like
 * every string (the digits of a 64-bit value or its 64 binary digits
 * would not fit). */
BEGIN
{
	printf("[%s] [%s] [%s]\n", lltostr(-1234567890), lltostr(7),
	    lltostr(-9223372036854775807 - 1));
	printf("[%s] [%s] [%s]\n", lltostr(-1, 2), lltostr(255, 16),
	    lltostr(-42, 10));
	exit(0);
}
