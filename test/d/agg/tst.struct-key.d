/* SPDX-License-Identifier: MIT */
/* Structs and unions as aggregation keys, compared by their bytes and
 * printed as DTrace prints a key of their size: an integer of 1, 2, 4 or 8
 * bytes as that integer (and sorted so), bytes that read as a string as
 * that string, other bytes as a table of them. */
#pragma D option quiet
struct word { int v; };
struct name { char s[12]; };
struct pair { int x; int y; char tag; };
union u { short h; char c; };
struct word w;
struct name n;
struct pair p;
union u un;
BEGIN
{
	w.v = 300;
	@w[w] = count();
	w.v = 7;
	@w[w] = count();
	@w[w] = count();
	n.s[0] = 'a'; n.s[1] = 'b';
	@n[n] = sum(5);
	p.x = 1; p.y = 2; p.tag = 'z';
	@p[p, 3] = max(9);
	un.h = 65535;
	@u[un] = count();
	exit(0);
}
