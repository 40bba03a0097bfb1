/* SPDX-License-Identifier: MIT */
/* The value an aggregating function takes is a scalar. */
BEGIN
{
	@ = sum(probename);
	exit(0);
}
