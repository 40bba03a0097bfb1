/* SPDX-License-Identifier: MIT */
/* Every use of an lquantize() aggregation takes the same parameters. */
BEGIN
{
	@a = lquantize(1, 0, 100, 10);
	@a = lquantize(2, 0, 100, 5);
	exit(0);
}
