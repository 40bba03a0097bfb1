/* SPDX-License-Identifier: MIT */
/* A positional conversion (%n$) is no conversion of DTrace's: its
 * syntax error. */
BEGIN
{
	printf("%2$d %1$d\n", 1, 2);
}
