/* SPDX-License-Identifier: MIT */
/* A provider that no plugin serves. */
#pragma D depends_on provider nosuchprovider
BEGIN
{
	exit(0);
}
