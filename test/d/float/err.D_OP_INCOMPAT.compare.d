/* SPDX-License-Identifier: MIT */
/* A double is not compared, even with a double. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = v.d < v.d;
}
