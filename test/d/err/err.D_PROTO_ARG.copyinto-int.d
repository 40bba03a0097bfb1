/* SPDX-License-Identifier: MIT */
/* copyinto()'s destination is a pointer (into alloca() memory), not an
 * integer. */
int x;

BEGIN
{
	copyinto(0, 4, x);
	exit(0);
}
