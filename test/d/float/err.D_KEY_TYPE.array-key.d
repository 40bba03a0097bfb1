/* SPDX-License-Identifier: MIT */
/* An associative array key is an integer or a string, not a double. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	a[v.d] = 1;
}
