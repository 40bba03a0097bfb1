/* SPDX-License-Identifier: MIT */
/* A translator cast of data that is no translator's input. */
struct out { int a; };
struct in { int b; };

translator struct out < struct in *p > {
	a = p->b;
};

BEGIN
{
	trace(xlate <struct out *>((char *)0)->a);
}
