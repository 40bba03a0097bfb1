/* SPDX-License-Identifier: MIT */
/* An integer variable cannot take a pointer. */
BEGIN
{
	x = 0;
	x = (char *)0;
	exit(0);
}
