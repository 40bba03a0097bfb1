/* SPDX-License-Identifier: MIT */
/* ++ takes an operand of scalar type, which a double is not. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	v.d++;
}
