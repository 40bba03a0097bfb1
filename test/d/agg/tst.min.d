/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
BEGIN
{
	@ = min(3);
	@ = min(-7);
	@ = min(12);
	exit(0);
}
