/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Floating-point values stored and read back: global, thread-local and
 * clause-local variables, associative arrays, a member of a struct
 * variable, a declared variable; a cast to the value's own type; ?: of
 * two values of one type; the sizes and the struct layout of float, double and long double. */
struct sample {
	char c;
	double d;
	float f;
	long double ld;
};
union bits {
	uint64_t w[2];
	double d;
	float f;
	long double ld;
};
union bits v;
struct sample s;
double declared;
long double wide;

BEGIN
{
	v.w[0] = 0x400a000000000000;	/* 3.25 */
	g = v.d;
	self->t = v.d;
	this->c = v.d;
	a["x"] = v.d;
	s.d = v.d;
	declared = (double)v.d;
	printf("%.2f %.2f %.2f %.2f %.2f %.2f %.2f\n", g, self->t, this->c,
	    a["x"], s.d, declared, v.w[1] == 0 ? s.d : v.d);
	v.w[0] = 0xaaaaaaaaaaaaaaab;	/* 1/3 as a long double */
	v.w[1] = 0x3ffd;
	wide = v.ld;
	s.ld = wide;
	self->w = s.ld;
	printf("%.18Lf %.18Lf\n", wide, self->w);
	printf("%d %d %d\n", sizeof(float), sizeof(double), sizeof(long double));
	printf("%d %d %d %d\n", offsetof(struct sample, d),
	    offsetof(struct sample, f), offsetof(struct sample, ld),
	    sizeof(struct sample));
	exit(0);
}
