/* SPDX-License-Identifier: MIT */
/* ustack()'s strsize is a positive constant. */
BEGIN
{
	ustack(4, -1);
	exit(0);
}
