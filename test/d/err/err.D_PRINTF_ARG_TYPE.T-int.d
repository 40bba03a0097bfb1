/* SPDX-License-Identifier: MIT */
/* %T takes a 64-bit time, not an int. */
BEGIN
{
	printf("%T\n", (int)1);
}
