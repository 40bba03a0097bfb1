/* SPDX-License-Identifier: MIT */
/* Must fail to compile: no translator from string to the output type. */
struct out_s { int a; };
translator struct out_s < int X > { a = X; };
BEGIN { trace(xlate <struct out_s> ("text").a); }
