/* SPDX-License-Identifier: MIT */
/* An aggregating function only assigns an aggregation: used as a value it
 * is void, which no variable takes (DTrace's check comes before its code
 * generator's D_CG_EXPR). */
BEGIN
{
	x = count();
}
