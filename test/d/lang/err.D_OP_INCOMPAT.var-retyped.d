/* SPDX-License-Identifier: MIT */
/* A variable keeps the type of its first assignment. */
BEGIN
{
	x = 1;
	x = "str";
	exit(0);
}
