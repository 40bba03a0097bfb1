/* SPDX-License-Identifier: MIT */
/* No cast turns a double into an integer. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = (long)v.d;
}
