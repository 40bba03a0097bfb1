/* SPDX-License-Identifier: MIT */
/* %wd is no conversion of DTrace's (a length modifier it does not
 * take with that conversion). */
BEGIN
{
	printf("%wd\n", 1);
}
