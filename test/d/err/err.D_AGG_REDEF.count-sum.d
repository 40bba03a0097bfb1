/* SPDX-License-Identifier: MIT */
/* Must fail to compile: one aggregation used with two functions. */
BEGIN
{
	@a = count();
	@a = sum(1);
}
