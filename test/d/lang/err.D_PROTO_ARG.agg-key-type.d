/* SPDX-License-Identifier: MIT */
/* The keys of an aggregation keep their types. */
BEGIN
{
	@a[1] = count();
	@a["x"] = count();
}
