/* SPDX-License-Identifier: MIT */
/* stack() records; it is no value for printf(). */
BEGIN
{
	printf("%p\n", stack());
}
