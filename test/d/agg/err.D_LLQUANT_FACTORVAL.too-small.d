/* SPDX-License-Identifier: MIT */
/* llquantize()'s factor is at least 2. */
BEGIN
{
	@ = llquantize(1, 1, 0, 2, 10);
}
