/* SPDX-License-Identifier: MIT */
/* A variable that holds a double takes no integer. */
union bits { uint64_t w; double d; float f; };
union bits v;

BEGIN
{
	x = v.d; x = 1;
}
