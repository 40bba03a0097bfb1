/* SPDX-License-Identifier: MIT */
/* printa()'s %s cannot print an integer key. */
BEGIN
{
	@a[1] = count();
	printa("%s %@d\n", @a);
	exit(0);
}
