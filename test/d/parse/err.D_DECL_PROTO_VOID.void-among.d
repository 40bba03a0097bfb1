/* SPDX-License-Identifier: MIT */
/* void is a parameter only alone, as in C and DTrace. */
int f(void);
int g(int, void);

BEGIN
{
	exit(0);
}
