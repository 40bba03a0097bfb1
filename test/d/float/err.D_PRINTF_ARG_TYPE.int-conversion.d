/* SPDX-License-Identifier: MIT */
/* printf %d takes an integer: a double is refused as DTrace refuses it. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	printf("%d\n", v.d);
}
