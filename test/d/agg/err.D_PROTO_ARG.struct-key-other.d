/* SPDX-License-Identifier: MIT */
/* An aggregation keyed by one struct type takes no key of another. */
struct s { int a; };
struct t { int a; };
struct s x;
struct t y;
BEGIN { @q[x] = count(); @q[y] = count(); }
