/* SPDX-License-Identifier: MIT */
/* stack()'s frames are a non-zero positive constant. */
BEGIN
{
	stack(0);
	exit(0);
}
