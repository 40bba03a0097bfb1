/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A clause runs only when its predicate is non-zero.  y is declared and
 * never assigned: it reads as 0. */
int y;

BEGIN
{
	x = 5;
}

BEGIN
/x > 3/
{
	printf("x > 3\n");
}

BEGIN
/x > 10/
{
	printf("x > 10\n");
}

BEGIN
/x == 5 && y == 0/
{
	printf("x == 5, y unset\n");
}

BEGIN
/0/
{
	printf("never\n");
}

BEGIN
{
	exit(0);
}
