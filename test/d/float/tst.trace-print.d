/* SPDX-License-Identifier: MIT */
/* trace() and print() of floating-point values, as DTrace's print() writes
 * them: float and double as %+.7e, long double as %+.16LE; a struct's
 * floating-point members likewise.  Not quiet: trace() puts a space
 * before the value. */
struct sample {
	double d;
	float f;
	long double ld;
	int n;
};
union bits {
	uint64_t w[6];
	struct sample s;
};
union bits v;

BEGIN
{
	v.w[0] = 0x400a000000000000;	/* 3.25 */
	v.w[1] = 0xbfc00000;		/* -1.5 */
	v.w[2] = 0xaaaaaaaaaaaaaaab;	/* 1/3 */
	v.w[3] = 0x3ffd;
	v.w[4] = 7;
	trace(v.s.d);
	trace(v.s.f);
	trace(v.s.ld);
	print(v.s.d);
	print(v.s);
	exit(0);
}
