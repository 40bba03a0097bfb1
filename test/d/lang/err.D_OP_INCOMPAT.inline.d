/* SPDX-License-Identifier: MIT */
/* An inline's value must fit its declared type. */
inline int i = "string";

BEGIN
{
	trace(i);
	exit(0);
}
