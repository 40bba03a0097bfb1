/* SPDX-License-Identifier: MIT */
/* A variable of a struct that is only named, never defined. */
struct nosuch x;

BEGIN
{
	exit(0);
}
