/* SPDX-License-Identifier: MIT */
/* One option per #pragma D option line. */
#pragma D option quiet flowindent
BEGIN
{
	exit(0);
}
