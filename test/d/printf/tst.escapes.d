/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* Escapes in D string literals. */
BEGIN
{
	printf("tab\there\n");
	printf("quote\"back\\slash\n");
	printf("octal \101\n");
	exit(0);
}
