/* SPDX-License-Identifier: MIT */
/* self->x read as a scalar may not then be used as an associative array. */
BEGIN
{
	y = self->x;
	self->x[1] = 2;
	exit(0);
}
