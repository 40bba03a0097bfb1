/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a module the kernel does not have (Solaris's). */
#pragma D depends_on module genunix
BEGIN { exit(0); }
