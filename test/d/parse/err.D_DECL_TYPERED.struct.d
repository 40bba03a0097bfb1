/* SPDX-License-Identifier: MIT */
/* A struct defined twice. */
struct s { int a; };
struct s { int b; };
BEGIN
{
}
