/* SPDX-License-Identifier: MIT */
/* Must fail to compile: the translator does not define the member read. */
struct out_s { int a; int b; };
translator struct out_s < int X > { a = X; };
BEGIN { trace(xlate <struct out_s> (1).b); }
