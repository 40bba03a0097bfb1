/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a second translator between the same types. */
struct out_s { int a; };
translator struct out_s < int X > { a = X; };
translator struct out_s < int Y > { a = Y + 1; };
BEGIN { exit(0); }
