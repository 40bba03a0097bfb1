/* SPDX-License-Identifier: MIT */
/* printa() of an aggregation no clause defines. */
BEGIN
{
	printa(@nowhere);
	exit(0);
}
