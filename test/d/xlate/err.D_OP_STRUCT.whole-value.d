/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a whole translated struct is not a value here. */
struct out_s { int a; };
translator struct out_s < int X > { a = X; };
BEGIN { trace(xlate <struct out_s *> (1)); }
