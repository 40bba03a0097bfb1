/* SPDX-License-Identifier: MIT */
/* A main program may not depend on a library. */
#pragma D depends_on library net.d
BEGIN
{
	exit(0);
}
