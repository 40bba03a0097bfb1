/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a translator's output struct is not defined. */
translator struct nowhere < int X > { a = X; };
BEGIN { exit(0); }
