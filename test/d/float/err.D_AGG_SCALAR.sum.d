/* SPDX-License-Identifier: MIT */
/* An aggregating function takes an integer value, not a double. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	@s = sum(v.d);
}
