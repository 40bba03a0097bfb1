/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * A whole struct, union or array stored through a pointer into alloca()
 * memory (D scratch memory) is copied there: from a struct variable, a
 * member of one, another object in scratch memory, and back.
 */
struct inner {
	int a;
	char tag[4];
};

struct outer {
	long id;
	struct inner in;
};

union word {
	int i;
	char c[4];
};

struct outer s;
union word u;

BEGIN
{
	s.id = 7;
	s.in.a = 11;
	s.in.tag[0] = 'h';
	s.in.tag[1] = 'i';
	this->p = (struct outer *)alloca(sizeof (struct outer));
	*this->p = s;
	printf("%d %d %s\n", this->p->id, this->p->in.a,
	    stringof(this->p->in.tag));

	this->q = (struct outer *)alloca(sizeof (struct outer));
	this->q->id = 1;
	s.in.a = 22;
	this->q->in = s.in;
	printf("%d %d %s\n", this->q->id, this->q->in.a,
	    stringof(this->q->in.tag));

	*this->q = *this->p;
	this->q->in.a++;
	printf("%d %d\n", this->q->id, this->q->in.a);

	u.i = 0x41424344;
	this->w = (union word *)alloca(sizeof (union word));
	*this->w = u;
	printf("%x %c\n", this->w->i, this->w->c[0]);

	s = *this->q;
	printf("%d %d\n", s.id, s.in.a);
	exit(0);
}
