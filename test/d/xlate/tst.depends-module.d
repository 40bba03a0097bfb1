/* SPDX-License-Identifier: MIT */
/* A dependency on the kernel itself is satisfied. */
#pragma D depends_on module vmlinux
#pragma D option quiet
BEGIN { printf("ok\n"); exit(0); }
