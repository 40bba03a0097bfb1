/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* printf's floating-point conversions of a float, a double and a long
 * double (their bits set through a union variable: D has no
 * floating-point constant): flags, widths, precisions, the L modifier. */
union bits {
	uint64_t w[2];
	uint32_t w32;
	float f;
	double d;
	long double ld;
};
union bits v;

BEGIN
{
	v.w[0] = 0x400921fb54442d18;	/* pi */
	printf("%f %e %E %g %G\n", v.d, v.d, v.d, v.d, v.d);
	printf("%.2f|%10.3f|%-10.1f|%+f|% f|%010.4f|%#.0f\n", v.d, v.d, v.d,
	    v.d, v.d, v.d, v.d);
	printf("%Lf %*.*f\n", v.d, 8, 2, v.d);
	v.w32 = 0xbfc00000;		/* -1.5 */
	printf("%f %e %g\n", v.f, v.f, v.f);
	v.w[0] = 0xaaaaaaaaaaaaaaab;	/* 1/3 to 64 bits */
	v.w[1] = 0x3ffd;
	printf("%Lf %.18Lf %Le %f\n", v.ld, v.ld, v.ld, v.ld);
	v.w[0] = 0x7ff0000000000000;	/* infinity */
	printf("%f %e|", v.d, v.d);
	v.w[0] = 0xfff0000000000000;
	printf("%f|", v.d);
	v.w[0] = 0x7ff8000000000000;
	printf("%f|", v.d);
	v.w[0] = 0x8000000000000000;	/* -0 */
	printf("%f|%g\n", v.d, v.d);
	exit(0);
}
