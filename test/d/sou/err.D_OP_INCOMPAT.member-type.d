/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a string assigned to an int member. */
struct a { int x; };
struct a va;
BEGIN { va.x = "text"; }
