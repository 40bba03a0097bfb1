/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * A void * (NULL among them) passes where a string function's prototype
 * takes a const char *, as in DTrace: it is read as a char * would be,
 * and NULL faults when the clause runs (invalid address 0).
 */
BEGIN
{
	this->p = (void *)alloca(8);
	*(char *)this->p = 'A';
	printf("%d %s\n", strlen(this->p), strjoin(this->p, "b"));
}

BEGIN
{
	printf("%d\n", strlen(NULL));
}

BEGIN
{
	x = strjoin("a", NULL);
}

BEGIN
{
	exit(0);
}

ERROR
{
	printf("fault %d at %d\n", arg4, arg5);
}
