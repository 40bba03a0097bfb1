/* SPDX-License-Identifier: MIT */
/* A .* precision needs its argument. */
BEGIN
{
	printf("%.*s\n");
	exit(0);
}
