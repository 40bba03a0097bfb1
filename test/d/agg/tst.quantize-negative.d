/* @dtrace-opts: -q */
/* quantize() of negative values, in DTrace's buckets: -5 and -8 count in
 * -8's, -4 and -3 in -4's, -1 in -1's. */
BEGIN
{
	@ = quantize(-5);
	@ = quantize(-8);
	@ = quantize(-4);
	@ = quantize(-3);
	@ = quantize(-1);
	@ = quantize(2);
	exit(0);
}
