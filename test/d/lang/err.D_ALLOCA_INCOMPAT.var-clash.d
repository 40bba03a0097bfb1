/* SPDX-License-Identifier: MIT */
/* A variable holds alloca() pointers or others, never both, across
 * clauses, whatever NULL was stored between. */
BEGIN
{
	p = (char *)alloca(4);
}

BEGIN
{
	p = NULL;
	q = (char *)arg0;
	p = q + 5;
	exit(0);
}
