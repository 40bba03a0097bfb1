/* SPDX-License-Identifier: MIT */
/* ustack()'s frames are a constant. */
BEGIN
{
	n = 4;
	ustack(n);
	exit(0);
}
