/* SPDX-License-Identifier: MIT */
/* Must fail to compile: the keys of an associative array take more room
 * than a key may (the declaration is freed on the error path). */
self int x[string, string, string, string, string];

BEGIN
{
	exit(0);
}
