/* SPDX-License-Identifier: MIT */
/* An associative array keyed by a struct takes no integer key. */
struct s { int a; };
struct s x;
BEGIN { q[x] = 1; q[1] = 2; }
