/* SPDX-License-Identifier: MIT */
/* A static variable is C's; a static function prototype (of a C header
 * under -C) is skipped. */
static int f(int);
static int x;

BEGIN
{
	exit(0);
}
