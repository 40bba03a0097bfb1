/* SPDX-License-Identifier: MIT */
/* An attributes pragma without its identifier. */
#pragma D attributes incorrect_attr
BEGIN
{
	exit(0);
}
