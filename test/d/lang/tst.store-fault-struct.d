/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * A whole struct stored through a pointer outside D scratch memory faults
 * as an invalid address (DTRACEFLT_BADADDR is 1) at that address, as a
 * scalar store does, and aborts its clause; the clauses after it run.
 */
struct pair {
	long a, b;
};

struct pair s;
uint64_t base;

BEGIN
{
	s.a = 1;
	*(struct pair *)0x2000 = s;
	printf("not reached\n");
}

BEGIN
{
	this->p = (struct pair *)alloca(sizeof (struct pair));
	base = (uint64_t)this->p;
	this->p[-1] = s;
	printf("not reached\n");
}

ERROR
{
	printf("error fault=%d addr=%s\n", arg4, arg5 == 0x2000 ? "0x2000" :
	    arg5 == base - 16 ? "p-16" : "?");
}

BEGIN
{
	this->p = (struct pair *)alloca(sizeof (struct pair));
	*this->p = s;
	printf("after %d\n", this->p->a);
	exit(0);
}
