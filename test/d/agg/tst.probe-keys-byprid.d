/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* An aggregation whose keys all name the probe keeps its entries in an
 * array by PRID: count, sum, avg, min, max and stddev there print as from
 * a hash; clear() keeps the keys with their values zeroed, and what comes
 * after counts from zero; trunc() removes the entries it does not keep,
 * until a firing records them again. */
BEGIN, END
{
	@c[probename] = count();
	@s[probename, probeprov] = sum(5);
}

BEGIN
{
	@c[probename] = count();
	@a[probename] = avg(4);
	@a[probename] = avg(8);
	@lo[probename] = min(7);
	@lo[probename] = min(-5);
	@hi[probename] = max(-7);
	@hi[probename] = max(-5);
	@d[probename] = stddev(2);
	@d[probename] = stddev(4);
	@t[probename] = count();
	printa(@c);
	printa(@s);
	printa("%s avg %@d min %@d max %@d stddev %@d\n", @a, @lo, @hi, @d);
	clear(@c);
	clear(@a);
	printa(@c);
	printa("%s avg %@d min %@d max %@d stddev %@d\n", @a, @lo, @hi, @d);
	trunc(@t);
	printa("t %s %@d\n", @t);
	exit(0);
}

END
{
	@c[probename] = count();
	@a[probename] = avg(20);
	@t[probename] = count();
	@t[probename] = count();
	printa(@c);
	printa(@s);
	printa("%s avg %@d min %@d max %@d stddev %@d\n", @a, @lo, @hi, @d);
	printa("t %s %@d\n", @t);
	trunc(@c, 1);
	printa(@c);
}
