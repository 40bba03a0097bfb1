/* SPDX-License-Identifier: MIT */
/* A predicate is of scalar type, which a double is not. */
union bits { uint64_t w; double d; };
union bits v;

BEGIN
/v.d/
{
	exit(0);
}
