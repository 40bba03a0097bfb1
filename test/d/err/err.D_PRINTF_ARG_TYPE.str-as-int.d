/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a string given to %d. */
BEGIN
{
	printf("%d\n", "str");
}
