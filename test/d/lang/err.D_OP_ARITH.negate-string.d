/* SPDX-License-Identifier: MIT */
/* Unary - takes an arithmetic operand (D_OP_ARITH). */
BEGIN
{
	x = -"text";
}
