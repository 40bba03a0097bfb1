/* SPDX-License-Identifier: MIT */
/* Structs and unions as the keys of associative arrays, global and
 * thread-local, alone or beside other keys: compared by their bytes,
 * whichever variable (global, clause-local, an array's element) holds
 * them; a key never stored reads as 0. */
#pragma D option quiet
struct pt { int x; int y; char tag; };
union num { int i; char c[4]; };
struct pt p, q;
this struct pt t;
union num un;
struct pt box[int];
BEGIN
{
	p.x = 1; p.y = 2; p.tag = 'a';
	q = p;
	q.y = 3;
	a[p] = 10;
	a[q] = 20;
	this->t = p;
	printf("%d %d %d\n", a[this->t], a[q], a[p]);
	this->t.tag = 'b';
	printf("%d\n", a[this->t]);
	box[1] = q;
	printf("%d\n", a[box[1]]);
	self->s[p, "x"] = 5;
	printf("%d %d\n", self->s[p, "x"], self->s[p, "y"]);
	un.i = 0x41;
	u[un] = "A";
	printf("%s\n", u[un]);
	a[p] = 0;
	printf("%d %d\n", a[p], a[q]);
	exit(0);
}
