/* SPDX-License-Identifier: MIT */
/* trunc()'s count is a scalar. */
BEGIN
{
	@a = count();
	trunc(@a, "1");
	exit(0);
}
