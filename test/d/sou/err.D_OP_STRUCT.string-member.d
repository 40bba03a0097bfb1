/* SPDX-License-Identifier: MIT */
/* A string member of a struct variable is refused, not an internal error. */
struct s { string name; int x; };
struct s v;

BEGIN
{
	v.x = 1;
	trace(v.name);
}
