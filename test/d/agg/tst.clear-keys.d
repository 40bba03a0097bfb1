/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* clear() of keyed count, sum, avg, min, max and stddev (kept in hashes
 * of CPU slots) zeroes every key's value, keeps the keys, and leaves the
 * other aggregations alone, also one sharing its map (the 32 keyless ones
 * take the ids of the aggregations with a map of their own: @s, @x and @y
 * share one); what is recorded after the clear counts from zero. */
BEGIN
{
	@f0 = count();
	@f1 = count();
	@f2 = count();
	@f3 = count();
	@f4 = count();
	@f5 = count();
	@f6 = count();
	@f7 = count();
	@f8 = count();
	@f9 = count();
	@f10 = count();
	@f11 = count();
	@f12 = count();
	@f13 = count();
	@f14 = count();
	@f15 = count();
	@f16 = count();
	@f17 = count();
	@f18 = count();
	@f19 = count();
	@f20 = count();
	@f21 = count();
	@f22 = count();
	@f23 = count();
	@f24 = count();
	@f25 = count();
	@f26 = count();
	@f27 = count();
	@f28 = count();
	@f29 = count();
	@f30 = count();
	@f31 = count();
	@c["a"] = count();
	@c["a"] = count();
	@c["b"] = count();
	@s[1] = sum(10);
	@s[2] = sum(-3);
	@a["k"] = avg(4);
	@a["k"] = avg(8);
	@lo["k"] = min(7);
	@lo["k"] = min(-5);
	@hi["k"] = max(7);
	@hi["k"] = max(-5);
	@d["k"] = stddev(2);
	@d["k"] = stddev(4);
	@x[1] = count();
	@x[2] = count();
	@y[1] = sum(100);
	@y[2] = sum(200);
	printa(@c);
	printa(@s);
	printa("%s avg %@d min %@d max %@d stddev %@d\n", @a, @lo, @hi, @d);
	clear(@c);
	clear(@s);
	clear(@a);
	clear(@lo);
	clear(@hi);
	clear(@d);
	clear(@x);
	printa(@c);
	printa(@s);
	printa("%s avg %@d min %@d max %@d stddev %@d\n", @a, @lo, @hi, @d);
	printa("x %d %@d\n", @x);
	printa("y %d %@d\n", @y);
	exit(0);
}

END
{
	@c["b"] = count();
	@s[2] = sum(6);
	@a["k"] = avg(20);
	@lo["k"] = min(3);
	@hi["k"] = max(3);
	@d["k"] = stddev(10);
	@x[2] = count();
	@y[2] = sum(1);
	printa(@c);
	printa(@s);
	printa("%s avg %@d min %@d max %@d stddev %@d\n", @a, @lo, @hi, @d);
	printa("x %d %@d\n", @x);
	printa("y %d %@d\n", @y);
	printf("the others:\n");
	printa("%@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d %@d\n", @f0, @f1, @f2, @f3, @f4, @f5, @f6, @f7, @f8, @f9, @f10, @f11, @f12, @f13, @f14, @f15, @f16, @f17, @f18, @f19, @f20, @f21, @f22, @f23, @f24, @f25, @f26, @f27, @f28, @f29, @f30, @f31);
}
