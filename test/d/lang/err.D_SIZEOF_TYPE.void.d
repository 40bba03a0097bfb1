/* SPDX-License-Identifier: MIT */
/* sizeof (void) has no size. */
BEGIN
{
	trace(sizeof (void));
	exit(0);
}
