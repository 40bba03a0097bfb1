/* SPDX-License-Identifier: MIT */
/* register is C's: no storage class D gives a variable, as DTrace says,
 * even with no type named. */
register x;

BEGIN
{
	exit(0);
}
