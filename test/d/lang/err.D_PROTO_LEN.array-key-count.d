/* SPDX-License-Identifier: MIT */
/* The keys of an associative array keep their number. */
BEGIN
{
	a[1] = 1;
	a[1, 2] = 2;
}
