/* SPDX-License-Identifier: MIT */
/* A member of a struct variable has no address either. */
struct pt { int x; int y; };
struct pt v;

BEGIN
{
	trace(&v.y);
}
