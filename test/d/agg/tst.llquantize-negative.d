/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * llquantize as Oracle DTrace lays it out: negative values in buckets
 * mirrored below the one of abs(v) < factor^low ("0" when low is 0,
 * "abs() < 10" when negative rows show, "< 10" when none do); beyond
 * factor^(high+1) either way, "<= -100" and ">= 100"; with nsteps above
 * the factor, order 0 has a bucket per value and the empty buckets
 * between them are not printed, but one at an edge takes its
 * neighbour's label.
 */
BEGIN
{
	@a = llquantize(3, 10, 0, 1, 20);
	@a = llquantize(9, 10, 0, 1, 20);
	@a = llquantize(15, 10, 0, 1, 20);
	@a = llquantize(-7, 10, 0, 1, 20);
	@b = llquantize(-150, 10, 0, 1, 10);
	@b = llquantize(-9223372036854775807 - 1, 10, 0, 1, 10);
	@b = llquantize(0, 10, 0, 1, 10);
	@b = llquantize(100, 10, 0, 1, 10);
	@c = llquantize(5, 10, 1, 3, 10);
	@c = llquantize(-20, 10, 1, 3, 10);
	@d = llquantize(10, 10, 1, 3, 10);
	@d = llquantize(5, 10, 1, 3, 10);
	@e = llquantize(10, 10, 1, 3, 10);
	exit(0);
}
