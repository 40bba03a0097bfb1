/* SPDX-License-Identifier: MIT */
/* An element of an associative array has no address. */
BEGIN
{
	a[1] = 2;
	trace(&a[1]);
}
