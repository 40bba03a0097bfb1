/* SPDX-License-Identifier: MIT */
/*
 * argv_print: prints its argument count and arguments, one line, so that a
 * test sees whether tracing changed what the program was started with
 * (a return probe on _start would: its [rsp] holds argc, not a return
 * address).
 *
 *   argv_print ARG...   prints "argc N: ARG ARG ..."
 */
#include <stdio.h>

int main(int argc, char **argv)
{
	printf("argc %d:", argc);
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\n");
	return 0;
}
