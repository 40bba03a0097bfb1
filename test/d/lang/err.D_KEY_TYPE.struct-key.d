/* SPDX-License-Identifier: MIT */
/* A struct is no aggregation key. */
struct s { int a; };
struct s *sp;
BEGIN
{
	@[*sp] = count();
}
