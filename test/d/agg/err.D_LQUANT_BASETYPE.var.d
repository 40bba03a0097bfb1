/* SPDX-License-Identifier: MIT */
/* lquantize()'s base is a constant. */
BEGIN
{
	x = 0;
	@ = lquantize(1, x, 10, 1);
}
