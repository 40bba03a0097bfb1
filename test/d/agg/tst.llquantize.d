/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* llquantize: the bucket of each order boundary, a weighted value, values
 * below factor^low and at or above factor^(high+1). */
BEGIN
{
	@ = llquantize(0, 10, 0, 2, 10);
	@ = llquantize(1, 10, 0, 2, 10);
	@ = llquantize(9, 10, 0, 2, 10);
	@ = llquantize(10, 10, 0, 2, 10);
	@ = llquantize(19, 10, 0, 2, 10);
	@ = llquantize(20, 10, 0, 2, 10);
	@ = llquantize(99, 10, 0, 2, 10);
	@ = llquantize(100, 10, 0, 2, 10);
	@ = llquantize(550, 10, 0, 2, 10, 3);
	@ = llquantize(999, 10, 0, 2, 10);
	@ = llquantize(1000, 10, 0, 2, 10);
	@ = llquantize(-5, 10, 0, 2, 10);
	@ = llquantize(123456, 10, 0, 2, 10);
	exit(0);
}
