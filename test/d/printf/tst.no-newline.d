/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* printf output is not followed by anything: no implicit newline. */
BEGIN
{
	printf("a");
	printf("b");
	printf("%s", "c");
	exit(0);
}
