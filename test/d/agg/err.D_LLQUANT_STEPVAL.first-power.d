/* SPDX-License-Identifier: MIT */
/* 24 divides 6^3 but not 36, the first power of 6 above it: DTrace
 * refuses it (the buckets of order 1 would not divide evenly). */
BEGIN
{
	@ = llquantize(1, 6, 0, 2, 24);
}
