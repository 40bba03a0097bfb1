/* SPDX-License-Identifier: MIT */
/* A void value cannot be stored in a variable. */
BEGIN
{
	x = (void)0;
	exit(0);
}
