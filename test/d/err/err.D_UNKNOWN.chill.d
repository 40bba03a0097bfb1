/* SPDX-License-Identifier: MIT */
/* chill() is DTrace's, and not implemented (as in DTrace for Linux). */
BEGIN
{
	chill(100);
	exit(0);
}
