/* SPDX-License-Identifier: MIT */
/* self and this are storage classes: a declaration takes one. */
self this int x;

BEGIN
{
	exit(0);
}
