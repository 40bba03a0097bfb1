/* SPDX-License-Identifier: MIT */
/* clear() of a variable. */
BEGIN
{
	x = 1;
	clear(x);
	exit(0);
}
