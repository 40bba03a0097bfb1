/* SPDX-License-Identifier: MIT */
/* Must fail to compile: ustackdepth is known once the consumer has
 * unwound the stack, so it cannot take part in an expression. */
BEGIN
{
	x = ustackdepth + 1;
}
