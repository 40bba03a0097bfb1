/* SPDX-License-Identifier: MIT */
/* Storing 0 into a struct or union variable: a global's or a clause-local's
 * bytes are cleared, a thread-local's or an associative array's element is
 * deleted (its room freed: dynvarsize holds two elements here); each reads
 * as zeros after.  Any other integer is refused (D_OP_INCOMPAT). */
#pragma D option quiet
#pragma D option dynvarsize=64
struct s { int a; long b; };
union v { int i; long l; };
struct s x;
this struct s t;
self union v u;
BEGIN
{
	x.a = 1; x.b = 2;
	this->t.a = 3; this->t.b = 4;
	self->u.l = 5;
	x = 0;
	this->t = 0;
	self->u = 0;
	printf("%d %d %d %d %d\n", x.a, x.b, this->t.a, this->t.b, self->u.l);
	this->t.a = 1;
	m[1] = this->t;
	this->t.a = 2;
	m[2] = this->t;
	m[1] = 0;
	this->t.a = 3;
	m[3] = this->t;
	printf("%d %d %d\n", m[1].a, m[2].a, m[3].a);
	exit(0);
}
