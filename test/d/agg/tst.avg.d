/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* avg() prints the integer mean. */
BEGIN
{
	@ = avg(1);
	@ = avg(2);
	@ = avg(3);
	@ = avg(4);
	exit(0);
}
