/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* llquantize with factor^(o+1) <= nsteps (buckets of width 1), a low
 * magnitude above 0, and keys. */
BEGIN
{
	@a["x"] = llquantize(2, 2, 1, 4, 4);
	@a["x"] = llquantize(3, 2, 1, 4, 4);
	@a["x"] = llquantize(7, 2, 1, 4, 4);
	@a["x"] = llquantize(12, 2, 1, 4, 4);
	@a["x"] = llquantize(31, 2, 1, 4, 4);
	@a["y"] = llquantize(1, 2, 1, 4, 4);
	@a["y"] = llquantize(32, 2, 1, 4, 4);
	exit(0);
}
