/* SPDX-License-Identifier: MIT */
/* . applies to a struct or union only. */
BEGIN
{
	x = 1;
	y = x.a;
}
