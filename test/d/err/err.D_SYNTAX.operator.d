/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a binary operator without its right operand. */
BEGIN
{
	trace(1 + );
}
