/* SPDX-License-Identifier: MIT */
/* Members and elements of struct and array variables (global,
 * thread-local, associative) take op= and ++/--, read and written in
 * place with their own size and sign. */
#pragma D option quiet
struct c { int x; char y; long z; };
struct c s;
self struct c t;
int a[4];
struct c m[int];
BEGIN
{
	s.x = 5; s.x += 10; s.x -= 3; s.x *= 2; s.x++; ++s.x; s.x--;
	s.y = 127; s.y++;
	a[2] = 3; a[2]++; a[2] <<= 2; a[1] |= 6;
	self->t.z = 1; self->t.z += 41;
	m[3].x += 7; m[3].x++;
	printf("%d %d %d %d %d %d\n", s.x, s.y, a[2], a[1], self->t.z, m[3].x);
	printf("%d %d %d\n", s.x++, s.x, --a[2]);
	exit(0);
}
