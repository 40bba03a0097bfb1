/* @dtrace-opts: -q -x strsize=24 */
/* SPDX-License-Identifier: MIT */
/* lltostr(v, base) works below a strsize of 40: what fits is written,
 * the rest cut at strsize. */
BEGIN
{
	printf("[%s]\n[%s]\n", lltostr(-1, 16), lltostr(-1, 2));
	printf("[%s]\n", lltostr(-9223372036854775807 - 1));
	exit(0);
}
