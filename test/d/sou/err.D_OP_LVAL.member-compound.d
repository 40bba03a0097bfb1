/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a member of a variable is assigned with = only. */
struct a { int x; };
struct a va;
BEGIN { va.x += 1; }
