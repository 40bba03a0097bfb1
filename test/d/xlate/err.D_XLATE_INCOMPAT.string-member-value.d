/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a whole translated struct with a string member
 * (read such a member through . or -> instead). */
struct out_s { int a; string name; };
translator struct out_s < int X > { a = X; name = "x"; };
struct out_s v;
BEGIN { v = xlate <struct out_s> (1); }
