/* SPDX-License-Identifier: MIT */
/* llquantize()'s magnitudes are constants. */
BEGIN
{
	x = 2;
	@ = llquantize(1, 10, x, 2, 10);
}
