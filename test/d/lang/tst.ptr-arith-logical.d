/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Pointer arithmetic scales by the pointed-to size, under ?: and && that
 * open their clause (see tst.incdec-nested.d). */
BEGIN
{
	p = (char *)8;
	i = (int *)8;
}

BEGIN
{
	printf("%d\n", p + 4 > p ?
	    ((p + 4) - p) * ((p + 6) - (p - 1)) : 0);
}

BEGIN
{
	printf("%d\n", (i + 1 == (int *)12) &&
	    ((i++ - (int *)0) * ((i + 2) - i)) == 4);
}

BEGIN
{
	printf("%d\n", (long)i);
	exit(0);
}
