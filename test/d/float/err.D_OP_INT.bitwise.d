/* SPDX-License-Identifier: MIT */
/* & takes integers. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = v.f & 1;
}
