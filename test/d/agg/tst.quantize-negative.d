/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* quantize() of negative values, in DTrace's buckets: a value v < 0
 * counts in the row -2^k with -2^(k+1) < v <= -2^k, as a positive one
 * counts in the row 2^k at or below it: -8 in -8's, -5 and -4 in -4's,
 * -3 in -2's, -1 in -1's. */
BEGIN
{
	@ = quantize(-5);
	@ = quantize(-8);
	@ = quantize(-4);
	@ = quantize(-3);
	@ = quantize(-1);
	@ = quantize(2);
	exit(0);
}
