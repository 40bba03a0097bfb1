/* SPDX-License-Identifier: MIT */
/* A D variable has no address. */
BEGIN
{
	x = 1;
	trace(&x);
}
