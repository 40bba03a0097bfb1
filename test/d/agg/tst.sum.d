/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
BEGIN
{
	@ = sum(5);
	@ = sum(-2);
	@ = sum(10);
	exit(0);
}
