/* SPDX-License-Identifier: MIT */
/* self->x read before any assignment is an integer: a string may not be
 * assigned to it afterwards. */
BEGIN
/self->x == 0/
{
	self->x = "str";
	exit(0);
}
