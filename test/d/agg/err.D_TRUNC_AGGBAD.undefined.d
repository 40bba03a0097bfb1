/* SPDX-License-Identifier: MIT */
/* trunc() of an aggregation no clause defines. */
BEGIN
{
	trunc(@none, 2);
	exit(0);
}
