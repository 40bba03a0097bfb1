/* SPDX-License-Identifier: MIT */
/* A variable of an enum that is only named, never defined. */
enum nosuch e;

BEGIN
{
	exit(0);
}
