/* SPDX-License-Identifier: MIT */
/* A * width is an integer argument. */
BEGIN
{
	printf("%*d\n", "8", 1);
	exit(0);
}
