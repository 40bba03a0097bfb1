/* @dtrace-opts: -q -x strsize=8 */
/* SPDX-License-Identifier: MIT */
/* A string member takes strsize bytes and keeps strsize - 1 characters. */
struct rec { string name; int id; };
struct rec g;

BEGIN
{
	g.id = 7;
	g.name = "abc";
	g.name = strjoin(g.name, "defghij");
	printf("%s %d %d\n", g.name, g.id, sizeof (struct rec));
	exit(0);
}
