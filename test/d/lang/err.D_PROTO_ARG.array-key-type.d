/* SPDX-License-Identifier: MIT */
/* The keys of an associative array keep their types. */
BEGIN
{
	a[1] = 1;
	a["x"] = 2;
}
