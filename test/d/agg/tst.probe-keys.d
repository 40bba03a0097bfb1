/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Keys that name the probe (kept in the map as the probe's id) print as
 * the names, merge across probes and with the same string from other
 * keys, and take clear(), trunc(), normalize() and printa() of several
 * aggregations as any key. */
BEGIN, END
{
	@a[probeprov] = count();
	@n[probename, probemod] = count();
}

BEGIN
{
	@a["dtrace"] = count();
	@a[execname] = count();
	@x[probeprov] = sum(7);
	@b[probename, 1] = sum(10);
	@b[probename, 2] = sum(20);
	@b[probefunc, 3] = sum(30);
	@m[probename] = max(5);
	@m["other"] = max(3);
	@t[probename] = count();
	@t[probename] = count();
	@t[probeprov] = count();
	@t["three"] = count();
	@t["three"] = count();
	@t["three"] = count();
	exit(0);
}

END
{
	printa(@a);
	printa(@n);
	printa("%s %@d %@d\n", @a, @x);
	printa(@b);
	normalize(@b, 10);
	printa(@b);
	printa(@m);
	trunc(@t, 2);
	printa(@t);
	clear(@b);
	printa(@b);
}
