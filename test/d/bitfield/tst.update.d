/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A bit-field of a struct variable (global, thread-local, clause-local,
 * associative) or of D scratch memory is written alone: its neighbours
 * keep their bits.  ++, -- and op= read, change and write it back; an
 * assignment's value is the value assigned, as in DTrace, not cut to the
 * field's bits. */
struct s {
	int lo : 3;
	unsigned mid : 5;
	int hi : 4;
	char c;
};
struct s g;
self struct s t;
struct s m[int];

BEGIN
{
	g.c = 'x'; g.lo = -1; g.mid = 31; g.hi = 5;
	g.mid = 2;
	printf("%d %d %d %c\n", g.lo, g.mid, g.hi, g.c);
	g.lo++; g.mid += 40; g.hi--;
	printf("%d %d %d %c\n", g.lo, g.mid, g.hi, g.c);
	printf("%d %d\n", g.lo = 5, g.mid = 33);
	printf("%d %d\n", g.lo, g.mid);
	self->t.hi = -8; self->t.hi--;
	this->l = g; this->l.mid = 9;
	m[1].lo = 3; m[1].lo <<= 1;
	printf("%d %d %d %d\n", self->t.hi, this->l.mid, g.mid, m[1].lo);
	this->p = (struct s *)alloca(sizeof(struct s));
	this->p->c = 'y'; this->p->hi = 7; this->p->lo = -3; this->p->hi++;
	printf("%d %d %d %c\n", this->p->lo, this->p->mid, this->p->hi,
	       this->p->c);
	exit(0);
}
