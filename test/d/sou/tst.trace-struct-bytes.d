/* SPDX-License-Identifier: MIT */
/*
 * trace() of a struct prints its bytes as a table, as Oracle's DTrace
 * does, even a 1-byte struct or one whose bytes would read as a string.
 */
#pragma D option quiet
struct one { char c; };
struct name { char s[6]; };
struct one o;
struct name n;

BEGIN
{
	o.c = 'A';
	n.s[0] = 'h';
	n.s[1] = 'i';
	trace(o);
	trace(n);
	exit(0);
}
