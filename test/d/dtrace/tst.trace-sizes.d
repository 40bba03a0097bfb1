/* SPDX-License-Identifier: MIT */
/*
 * trace() of each integer size, default output: the width is that of the
 * type's largest value, as DTrace's; unsigned types print unsigned.
 */
BEGIN
{
	trace((char)-1);
	trace((short)-1);
	trace((int)-1);
	trace((long long)-1);
	trace((unsigned char)-1);
	trace((unsigned short)-1);
	trace((unsigned int)-1);
	trace((unsigned long long)-1);
	trace(1);
	exit(0);
}
