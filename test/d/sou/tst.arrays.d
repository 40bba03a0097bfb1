/* SPDX-License-Identifier: MIT */
/* Arrays of structs, a clause-local array, a two-dimensional array:
 * elements copied whole, members and elements written and read. */
#pragma D option quiet
struct c { int x; int y; };
struct c arr[3];
this int a[4];
int m2[2][3];
BEGIN
{
	arr[1].x = 5;
	arr[2] = arr[1];
	arr[2].y = 6;
	this->a[2] = 9;
	m2[1][2] = 12;
	m2[0][1] = m2[1][2] + 1;
	printf("%d %d %d %d %d %d %d\n", arr[1].x, arr[2].x, arr[2].y, arr[0].y, this->a[2], m2[1][2], m2[0][1]);
	exit(0);
}
