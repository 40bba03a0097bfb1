/* SPDX-License-Identifier: MIT */
/* Must fail to compile: more arguments than conversions. */
BEGIN
{
	printf("%d\n", 1, 2);
}
