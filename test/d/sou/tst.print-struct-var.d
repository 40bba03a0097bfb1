/* SPDX-License-Identifier: MIT */
/* print() of a struct variable and of a whole translated struct: its
 * members by name, as DTrace lays them out. */
#pragma D option quiet
struct coords { int x; short y; };
struct coords c;
translator struct coords < int X > { x = X; y = X * 2; };
BEGIN { c.x = 3; c.y = 4; print(c); print(xlate<struct coords>(7)); exit(0); }
