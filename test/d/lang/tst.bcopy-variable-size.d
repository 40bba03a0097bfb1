/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * bcopy() of a size known only when the clause runs, as DTrace takes it:
 * the bytes are copied; a size past the end of scratch memory faults,
 * invalid address (fault 1), and nothing is copied.
 */
BEGIN
{
	d = (char *)alloca(16);
	n = 3;
	bcopy("abcdef", d, n);
	printf("%s\n", stringof(d));
	this->s = (char *)alloca(8);
	this->s[0] = 'x';
	this->s[5] = 'y';
	n = 6;
	bcopy(this->s, d + 8, n);
	printf("%c %c %d\n", d[8], d[13], d[14]);
}

BEGIN
{
	d = (char *)alloca(8);
	n = 9;
	bcopy("abcdefghij", d, n);
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
