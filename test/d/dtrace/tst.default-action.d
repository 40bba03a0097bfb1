/* SPDX-License-Identifier: MIT */
/*
 * The default action (the probe line) is for empty clauses only: a clause
 * that only assigns variables prints nothing, one with an action prints
 * its line.
 */
BEGIN
{
	n = 1;
}

BEGIN
/n == 1/
{
}

BEGIN
{
	exit(0);
}
