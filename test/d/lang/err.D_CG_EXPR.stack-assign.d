/* SPDX-License-Identifier: MIT */
/* A variable takes the type of stack(); the action in an expression is
 * what is refused. */
BEGIN
{
	self->s = stack();
}
