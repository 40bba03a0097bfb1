/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a member's definition has the wrong type
 * (DTrace: "char *" = "int"). */
struct out_s { char *p; };
translator struct out_s < int X > { p = X; };
BEGIN { exit(0); }
