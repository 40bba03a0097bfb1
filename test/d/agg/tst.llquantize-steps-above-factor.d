/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* nsteps may exceed every power of the factor the magnitudes reach: DTrace
 * asks only that the first power of the factor at least nsteps be a
 * multiple of it (100 here); below nsteps a bucket is 1 wide. */
BEGIN
{
	@ = llquantize(3, 10, 0, 0, 100);
	@ = llquantize(7, 10, 0, 0, 100);
	@ = llquantize(12, 10, 0, 0, 100);
	exit(0);
}
