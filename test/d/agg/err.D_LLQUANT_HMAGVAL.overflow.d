/* SPDX-License-Identifier: MIT */
BEGIN
{
	@ = llquantize(1, 10, 0, 30, 10);
}
