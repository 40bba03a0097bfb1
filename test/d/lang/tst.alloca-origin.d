/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A variable keeps to alloca() pointers, NULL aside, through arithmetic,
 * casts and ternaries of alloca() pointers. */
BEGIN
{
	p = (char *)alloca(8);
	p = NULL;
	p = (char *)alloca(8) + 1;
	q = p != NULL ? p : (char *)alloca(4);
	r = p != NULL ? p : NULL;
	*q = 'a';
	printf("%d %d\n", q == p, r == p);
	exit(0);
}
