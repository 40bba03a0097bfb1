/* SPDX-License-Identifier: MIT */
/* Must fail to compile: op= of a member takes an integer. */
struct a { int x; };
struct a va;
BEGIN { va.x += "text"; }
