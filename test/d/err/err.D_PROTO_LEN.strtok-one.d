/* SPDX-License-Identifier: MIT */
/* strtok() takes a string and its delimiters. */
BEGIN
{
	trace(strtok("a,b"));
}
