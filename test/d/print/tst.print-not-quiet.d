/* SPDX-License-Identifier: MIT */
/* Without -q, print() values still take a line each: the first after the
 * probe line, the next below it, never run together. */
struct coords { int x; short y; };
struct coords c;
BEGIN { c.x = 3; print(1); print(c); print(2); exit(0); }
