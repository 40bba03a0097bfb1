/* SPDX-License-Identifier: MIT */
/* normalize() takes an aggregation and a factor. */
BEGIN
{
	@a = sum(10);
	normalize(@a);
	exit(0);
}
