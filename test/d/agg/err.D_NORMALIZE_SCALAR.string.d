/* SPDX-License-Identifier: MIT */
/* normalize()'s factor is a scalar. */
BEGIN
{
	@a = sum(10);
	normalize(@a, "ten");
	exit(0);
}
