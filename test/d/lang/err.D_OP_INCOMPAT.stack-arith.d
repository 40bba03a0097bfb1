/* SPDX-License-Identifier: MIT */
/* The value of stack() is of type "stack", which no operator takes: the
 * operands' types are refused before the action in an expression. */
BEGIN
{
	x = 1 + stack();
}
