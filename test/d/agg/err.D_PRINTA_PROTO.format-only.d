/* SPDX-License-Identifier: MIT */
/* printa() with a format and no aggregation. */
BEGIN
{
	printa("%@d\n");
	exit(0);
}
