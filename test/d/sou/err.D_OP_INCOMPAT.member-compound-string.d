/* SPDX-License-Identifier: MIT */
/* Must fail to compile: += of a member takes an integer, never a string. */
struct a { int x; };
struct a va;
BEGIN { va.x += "text"; }
