/* SPDX-License-Identifier: MIT */
/* sizeof does not apply to a bit-field, which has no bytes of its own. */
struct s {
	int a : 3;
} v;

BEGIN
{
	trace(sizeof(v.a));
	exit(0);
}
