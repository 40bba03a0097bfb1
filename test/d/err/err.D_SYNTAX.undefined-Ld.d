/* SPDX-License-Identifier: MIT */
/* %Ld is no conversion of DTrace's (a length modifier it does not
 * take with that conversion). */
BEGIN
{
	printf("%Ld\n", 1);
}
