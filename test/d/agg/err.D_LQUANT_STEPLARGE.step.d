/* SPDX-License-Identifier: MIT */
/* lquantize()'s step leaves at least one level. */
BEGIN
{
	@ = lquantize(1, 0, 10, 20);
}
