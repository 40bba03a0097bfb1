/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * alloca(0) takes no room: two in a row give the same pointer.  A size
 * known only when the program runs gives zeroed memory of that size; a
 * size larger than scratch memory, known or not, faults when the clause
 * runs, out of scratch space (fault 5), as in DTrace.
 */
BEGIN
{
	s = alloca(0);
	printf("%d %d\n", alloca(0) == alloca(0), alloca(0) == s);
	n = 24;
	this->p = (char *)alloca(n);
	this->p[n - 1] = 5;
	printf("%d %d\n", this->p[0], this->p[n - 1]);
}

BEGIN
{
	n = 100000;
	this->q = alloca(n);
	printf("not reached\n");
}

BEGIN
{
	this->q = alloca(100000);
	printf("not reached\n");
}

BEGIN
{
	exit(0);
}

ERROR
{
	printf("fault %d\n", arg4);
}
