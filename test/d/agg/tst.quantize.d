/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* quantize(): power-of-two buckets, one empty row either side. */
BEGIN
{
	@ = quantize(1);
	@ = quantize(2);
	@ = quantize(3);
	@ = quantize(3);
	exit(0);
}
