/* SPDX-License-Identifier: MIT */
/* %zu is no conversion of DTrace's (a length modifier it does not
 * take with that conversion). */
BEGIN
{
	printf("%zu\n", 1);
}
