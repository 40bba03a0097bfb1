/* SPDX-License-Identifier: MIT */
/* %f takes a float, a double or a long double: DTrace's
 * prototype mismatch for the integer given. */
BEGIN
{
	printf("%f\n", 1);
	exit(0);
}
