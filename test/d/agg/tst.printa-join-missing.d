/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* printa() of several aggregations prints 0 for each one that lacks the
 * row's key, also when a row lacks several. */
BEGIN
{
	@a["avg only"] = avg(4);
	@a["all"] = avg(2);
	@lo["all"] = min(-5);
	@hi["all"] = max(7);
	@d["all"] = stddev(3);
	@lo["min only"] = min(3);
	printa("%-8s avg %@d min %@d max %@d stddev %@d\n", @a, @lo, @hi, @d);
	exit(0);
}
