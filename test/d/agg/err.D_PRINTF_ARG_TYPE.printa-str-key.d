/* SPDX-License-Identifier: MIT */
/* printa()'s %d cannot print a string key. */
BEGIN
{
	@a["x"] = count();
	printa("%d %@d\n", @a);
	exit(0);
}
