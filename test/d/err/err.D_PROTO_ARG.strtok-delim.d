/* SPDX-License-Identifier: MIT */
/* strtok()'s delimiters are a string. */
BEGIN
{
	trace(strtok("a,b", ','));
}
