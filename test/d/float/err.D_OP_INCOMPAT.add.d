/* SPDX-License-Identifier: MIT */
/* D has no floating-point arithmetic: + of a double and an int is
 * refused as DTrace refuses it. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = v.d + 1;
}
