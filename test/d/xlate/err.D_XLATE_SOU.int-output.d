/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a translator's output is not a struct or union. */
translator int < int X > { };
BEGIN { exit(0); }
