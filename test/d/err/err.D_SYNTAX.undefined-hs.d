/* SPDX-License-Identifier: MIT */
/* %hs is no conversion of DTrace's (a length modifier it does not
 * take with that conversion). */
BEGIN
{
	printf("%hs\n", 1);
}
