/* SPDX-License-Identifier: MIT */
/* A parameter takes no storage class but register. */
int f(register int);
int g(static int);

BEGIN
{
	exit(0);
}
