/* SPDX-License-Identifier: MIT */
/* No cast turns an integer into a floating-point value. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = (double)v.w;
}
