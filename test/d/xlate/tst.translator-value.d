/* SPDX-License-Identifier: MIT */
/* A whole translated struct: copied into struct variables of each kind,
 * traced, and the pointer xlate <T *> yields read through ->; a member
 * the translator does not define is zero; an inline defined as an xlate
 * used as a value. */
#pragma D option quiet

struct info {
	int id;
	long twice;
	short unset;
	char low;
};

translator struct info < int X > {
	id = X;
	twice = (long)X * 2;
	low = X;
};

inline struct info *cur = xlate <struct info *> (300);

struct info g;
self struct info s;
struct info m[int];

BEGIN
{
	g = xlate <struct info> (5);
	self->s = xlate <struct info> (6);
	m[1] = xlate <struct info> (7);
	this->i = xlate <struct info> (8);
	this->p = xlate <struct info *> (9);
	this->c = cur;
	printf("%d %d %d %d\n", g.id, g.twice, g.unset, g.low);
	printf("%d %d %d\n", self->s.twice, m[1].id, this->i.twice);
	printf("%d %d %d %d\n", this->p->id, this->p->twice, this->c->id,
	    this->c->low);
	trace(xlate <struct info> (0x41));
	exit(0);
}
