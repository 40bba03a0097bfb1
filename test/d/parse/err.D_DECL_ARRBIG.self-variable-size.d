/* SPDX-License-Identifier: MIT */
/* A thread-local variable of 4 GB inside a struct. */
struct big {
	int a[1000000000];
};
self struct big b;

BEGIN
{
	self->b.a[1] = 1;
	exit(0);
}
