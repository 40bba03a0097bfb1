/* SPDX-License-Identifier: MIT */
/* No attribute may be used with void. */
unsigned void *p;
BEGIN
{
	exit(0);
}
