/* SPDX-License-Identifier: MIT */
/* An aggregation key is an integer or a string, not a double. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	@c[v.d] = count();
}
