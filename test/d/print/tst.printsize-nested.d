/* SPDX-License-Identifier: MIT */
/* -x printsize cuts nested structs where the first member at or beyond
 * it would print: "..." in the innermost struct still open. */
#pragma D option quiet
struct n {
	long long x;
	struct {
		long long x;
		struct {
			long long x;
			struct { long long x; } c;
		} b;
	} a;
	long long y;
};
struct n v;
BEGIN
{
	v.x = 1; v.a.x = 2; v.a.b.x = 3; v.a.b.c.x = 4; v.y = 5;
	setopt("printsize", "40"); print(v);
	setopt("printsize", "32"); print(v);
	setopt("printsize", "24"); print(v);
	setopt("printsize", "8"); print(v);
	exit(0);
}
