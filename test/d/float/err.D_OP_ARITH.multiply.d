/* SPDX-License-Identifier: MIT */
/* * takes operands of arithmetic type, which a double is not. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = v.d * v.d;
}
