/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * Stores through pointers into alloca() memory (D scratch memory) are
 * read back: through *p, p[i], p->m, with op= and ++.
 */
struct pt {
	int x;
	long y;
	char c;
};

BEGIN
{
	this->p = (int *)alloca(16);
	*this->p = 5;
	this->p[1] = 6;
	this->p[2] = -7;
	this->p[1] += 10;
	this->p[3]++;
	++this->p[3];
	printf("%d %d %d %d\n", *this->p, this->p[1], this->p[2], this->p[3]);

	this->s = (struct pt *)alloca(sizeof (struct pt));
	this->s->x = 42;
	this->s->y = 1234567890123;
	this->s->c = 'z';
	this->s->x *= 2;
	printf("%d %d %c\n", this->s->x, this->s->y, this->s->c);
	exit(0);
}
