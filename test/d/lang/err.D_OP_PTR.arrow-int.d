/* SPDX-License-Identifier: MIT */
/* -> applies to a pointer only. */
BEGIN
{
	x = 1;
	y = x->a;
}
