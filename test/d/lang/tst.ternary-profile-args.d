/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/* A ?: over the arguments of a profile provider probe (tick: one CPU),
 * opening its clause (see tst.incdec-nested.d): exactly one of arg0
 * (kernel pc) and arg1 (user pc) is not zero. */
tick-97
{
	printf("%d\n", (arg0 != 0 || arg1 != 0) ?
	    ((arg0 != 0) + (arg1 != 0)) * ((arg0 != 0) + (arg1 != 0) + 1) : 5);
	exit(0);
}
