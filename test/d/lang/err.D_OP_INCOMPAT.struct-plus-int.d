/* SPDX-License-Identifier: MIT */
/* + takes integers and pointers: a struct is neither (DTrace's
 * D_OP_INCOMPAT, not an arithmetic-operand error). */
struct s { int a; };
struct s v;

BEGIN
{
	x = v + 1;
}
