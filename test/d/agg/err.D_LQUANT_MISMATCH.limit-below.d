/* SPDX-License-Identifier: MIT */
/* lquantize()'s limit is not below its base. */
BEGIN
{
	@ = lquantize(1, 10, 0, 1);
}
