/* SPDX-License-Identifier: MIT */
/* An aggregating function only assigns an aggregation. */
BEGIN
{
	x = count();
}
