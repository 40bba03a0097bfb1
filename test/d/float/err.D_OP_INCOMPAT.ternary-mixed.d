/* SPDX-License-Identifier: MIT */
/* ?: takes a float and a double as operands of incompatible types. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = 1 ? v.d : v.f;
}
