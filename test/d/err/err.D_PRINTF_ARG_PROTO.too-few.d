/* SPDX-License-Identifier: MIT */
/* Must fail to compile: fewer arguments than conversions. */
BEGIN
{
	printf("%d %d\n", 1);
}
