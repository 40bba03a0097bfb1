/* SPDX-License-Identifier: MIT */
/* Only the constant 0 may be stored into a struct variable (it clears
 * it); any other integer is of another type. */
struct s { int a; };
struct s x;
BEGIN { x = 1; }
