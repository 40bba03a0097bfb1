/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Aggregations without keys, more than the mstate's first bytes hold
 * (the rest after the this-> variables): values, clear(), trunc() and
 * normalize() alike; a sum of 0 and an empty histogram that recorded are
 * printed, until trunc(). */
BEGIN
{
	@c = count();
	@s = sum(7);
	@a = avg(4);
	@a = avg(8);
	@lo = min(3);
	@lo = min(-2);
	@hi = max(9);
	@d1 = stddev(2);
	@d1 = stddev(4);
	@d2 = stddev(10);
	@d2 = stddev(20);
	@d3 = stddev(1);
	@d4 = stddev(5);
	@d4 = stddev(7);
	@t = count();
	@z = sum(0);
	@zt = sum(0);
	@q = quantize(3);
	@q = quantize(3, 0);
	@l = lquantize(4, 0, 10, 5);
	@l = lquantize(-1, 0, 10, 5);
	exit(0);
}

END
{
	printa("c %@d s %@d a %@d lo %@d hi %@d\n", @c, @s, @a, @lo, @hi);
	printa("d1 %@d d2 %@d d3 %@d d4 %@d\n", @d1, @d2, @d3, @d4);
	normalize(@s, 7);
	printa("s normalized %@d\n", @s);
	clear(@c);
	clear(@d4);
	printa("c cleared %@d d4 cleared %@d\n", @c, @d4);
	trunc(@t);
	trunc(@d3);
	printa("t truncated %@d\n", @t);
	printa("d3 truncated %@d\n", @d3);
	printa("z %@d zt %@d\n", @z, @zt);
	trunc(@zt);
	printa("zt truncated %@d\n", @zt);
	printa(@q);
	printa(@l);
	clear(@l);
	printa(@l);
	trunc(@q);
	printa(@q);
}
