/* SPDX-License-Identifier: MIT */
/* %C takes a character, not a string. */
BEGIN
{
	printf("%C\n", "abc");
}
