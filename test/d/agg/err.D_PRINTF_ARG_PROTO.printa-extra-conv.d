/* SPDX-License-Identifier: MIT */
/* More key conversions than the aggregation has keys. */
BEGIN
{
	@a["x"] = count();
	printa("%s %d %@d\n", @a);
	exit(0);
}
