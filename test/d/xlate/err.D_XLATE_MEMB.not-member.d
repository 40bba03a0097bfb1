/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a translator defines a member its output lacks. */
struct out_s { int a; };
translator struct out_s < int X > { a = X; b = X; };
BEGIN { exit(0); }
