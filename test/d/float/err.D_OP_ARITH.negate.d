/* SPDX-License-Identifier: MIT */
/* Unary - takes an operand of arithmetic type, which a double is not. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = -v.d;
}
