/* SPDX-License-Identifier: MIT */
/* An associative array with a key of type void. */
int a[string, void];

BEGIN
{
	exit(0);
}
