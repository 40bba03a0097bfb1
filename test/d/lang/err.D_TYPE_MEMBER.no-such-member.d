/* SPDX-License-Identifier: MIT */
/* A member the struct does not have. */
struct s { int a; };
struct s *sp;
BEGIN
{
	y = sp->b;
}
