/* SPDX-License-Identifier: MIT */
/* The keys of an aggregation keep their number. */
BEGIN
{
	@a[1] = count();
	@a[1, 2] = count();
}
