/* SPDX-License-Identifier: MIT */
/* A predicate is of scalar type. */
struct s { int a; };
struct s v;

BEGIN
/v/
{
	exit(0);
}
