/* SPDX-License-Identifier: MIT */
/* lquantize()'s step is positive. */
BEGIN
{
	@ = lquantize(1, 0, 10, 0);
}
