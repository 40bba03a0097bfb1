/* SPDX-License-Identifier: MIT */
/* Every use of an llquantize() aggregation takes the same parameters. */
BEGIN
{
	@a = llquantize(1, 10, 0, 6, 20);
	@a = llquantize(2, 10, 0, 5, 20);
	exit(0);
}
