/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a provider no plugin serves. */
#pragma D depends_on provider nosuchprovider
BEGIN { exit(0); }
