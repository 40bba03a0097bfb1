/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* print() of scalars and strings: the type's name, then the value;
 * integers in hexadecimal, a null pointer as NULL, strings quoted, one
 * value a line. */
enum colour { RED = 1, GREEN = 2 };

BEGIN
{
	print(42);
	print((char)65);
	print(-1);
	print((unsigned short)65535);
	print((void *)0);
	print((char *)0x1000);
	print(GREEN);
	print((enum colour)7);
	print("hello");
	exit(0);
}
