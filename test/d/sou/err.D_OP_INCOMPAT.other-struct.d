/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a struct variable takes only its own type. */
struct a { int x; };
struct b { int x; };
struct a va;
struct b vb;
BEGIN { va = vb; }
