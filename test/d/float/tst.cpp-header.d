/* @dtrace-opts: -C -q */
/* SPDX-License-Identifier: MIT */
/* The floating-point typedefs of a C header under -C are D's floating-point
 * types: <math.h>'s double_t takes a double and prints with %f. */
#include <math.h>

union bits {
	uint64_t w;
	double_t d;
};
union bits v;
double_t kept;

BEGIN
{
	v.w = 0x400a000000000000;	/* 3.25 */
	kept = v.d;
	printf("%d %d %.2f\n", sizeof(float_t), sizeof(double_t), kept);
	exit(0);
}
