/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* An aggregation without keys, printed at exit after the final newline. */
BEGIN
{
	@ = count();
	@ = count();
	exit(0);
}
