/* SPDX-License-Identifier: MIT */
/* %f takes a floating-point value, which D has none of: DTrace's
 * prototype mismatch for the integer given. */
BEGIN
{
	printf("%f\n", 1);
	exit(0);
}
