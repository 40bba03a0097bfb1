/* SPDX-License-Identifier: MIT */
/* -> applies to a pointer to a struct or union only. */
int *ip;
BEGIN
{
	y = ip->a;
}
