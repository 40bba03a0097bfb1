/* SPDX-License-Identifier: MIT */
/* Struct, union and array variables stored by value: globals, thread-
 * locals, clause-locals and associative array values; members, nested
 * members and elements written and read; whole values copied between
 * variables of every kind; an absent element reads as zeros and writing
 * one of its members creates it; a clause-local keeps its value for the
 * next clause of the firing. */
#pragma D option quiet

struct coords {
	int x;
	short y;
	char tag[6];
	struct { long lo, hi; } range;
};

union both {
	int i;
	char c[4];
};

struct coords c;
this struct coords t;
self struct coords s;
struct coords m[string];
union both u;
int a[4];
self long sa[3];

BEGIN
{
	c.x = 1;
	c.y = -2;
	c.tag[0] = 'h';
	c.tag[1] = 'i';
	c.range.hi = 1LL << 40;
	this->t = c;
	this->t.x = 5;
	self->s = this->t;
	m["one"] = c;
	m["two"].y = 9;
	u.i = 0x41424344;
	a[0] = 10;
	a[3] = a[0] + 3;
	self->sa[2] = -7;
	printf("%d %d %s %d\n", c.x, c.y, c.tag, c.range.hi);
	printf("%d %d %d %s\n", this->t.x, self->s.x, self->s.y,
	    stringof(self->s.tag));
	printf("%d %d %d %d\n", m["one"].x, m["two"].y, m["two"].x,
	    m["three"].y);
	printf("%c %c %d %d\n", u.c[0], u.c[3], sizeof (u), sizeof (c));
	printf("%d %d %d %d %d\n", a[0], a[1], a[3], self->sa[2],
	    self->sa[0]);
}

BEGIN
{
	printf("kept: %d %d\n", this->t.x, this->t.range.hi >> 40);
	exit(0);
}
