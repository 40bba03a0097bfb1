/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * & takes the address of an object reached through a pointer: a member,
 * an element, *p; the address reads and writes the object.
 */
struct pt { int x; int y; char name[8]; };

BEGIN
{
	this->p = (struct pt *)alloca(sizeof (struct pt));
	this->p->x = 3;
	this->p->y = 4;
	this->q = &this->p->y;
	*this->q = 7;
	printf("%d %d\n", this->p->y, (uint64_t)this->q - (uint64_t)this->p);
	this->c = &this->p->name[2];
	printf("%d\n", (uint64_t)this->c - (uint64_t)this->p);
	printf("%d\n", &*this->p == this->p);
	this->a = (int *)alloca(4 * sizeof (int));
	this->a[3] = 9;
	printf("%d %d\n", *(&this->a[3]), (uint64_t)&this->a[3] - (uint64_t)this->a);
	exit(0);
}
