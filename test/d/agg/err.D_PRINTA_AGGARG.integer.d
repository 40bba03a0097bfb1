/* SPDX-License-Identifier: MIT */
/* printa() prints aggregations, nothing else. */
BEGIN
{
	@a = count();
	printa("%@d\n", @a, 1);
	exit(0);
}
