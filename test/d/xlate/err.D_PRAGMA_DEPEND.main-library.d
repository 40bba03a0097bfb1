/* SPDX-License-Identifier: MIT */
/* Must fail to compile: only a D library may depend on a library. */
#pragma D depends_on library net.d
BEGIN { exit(0); }
