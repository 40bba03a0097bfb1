/* SPDX-License-Identifier: MIT */
/* An associative array keyed by one struct type takes no key of another,
 * whatever its layout. */
struct s { int a; };
struct t { int a; };
struct s x;
struct t y;
BEGIN { q[x] = 1; q[y] = 2; }
