/* SPDX-License-Identifier: MIT */
/* An array dimension over UINT_MAX (Oracle's test of the same tag). */
int x[88294967295];

BEGIN
{
	exit(0);
}
