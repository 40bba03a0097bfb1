/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * A store through a pointer outside D scratch memory faults as an invalid
 * address (DTRACEFLT_BADADDR is 1) at that address and aborts its clause:
 * an integer made a pointer, an element before alloca() memory, one far
 * past its end.  The clauses after it run.
 */
uint64_t base;

BEGIN
{
	*(int *)0x1000 = 5;
	printf("not reached\n");
}

BEGIN
{
	this->l = (long *)alloca(8);
	base = (uint64_t)this->l;
	this->l[-1] = 1;
	printf("not reached\n");
}

BEGIN
{
	this->c = (char *)alloca(8);
	base = (uint64_t)this->c;
	this->c[100000] = 1;
	printf("not reached\n");
}

ERROR
{
	printf("error fault=%d addr=base%+d\n", arg4, (long)(arg5 - base));
}

BEGIN
{
	this->p = (int *)alloca(8);
	this->p[1] = 3;
	printf("after %d\n", this->p[1]);
	exit(0);
}
