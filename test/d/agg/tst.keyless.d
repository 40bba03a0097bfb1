/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Aggregations without keys, more than the mstate holds (the rest in
 * per-CPU arrays): values, clear(), trunc() and normalize() alike. */
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
}
