/* SPDX-License-Identifier: MIT */
/* Must fail to compile: ++ of a member that is itself a struct. */
struct in { int v; };
struct a { struct in i; };
struct a va;
BEGIN { va.i++; }
