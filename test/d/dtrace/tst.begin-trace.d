/* SPDX-License-Identifier: MIT */
/*
 * The default output: the heading, then one line per firing with the CPU,
 * the probe id, function:name, and the traced value (int: 4 bytes).
 * BEGIN is probe 1.  dtrace prints a newline when tracing ends.
 * (test/run.sh pins dtrace to CPU 0.)
 */
BEGIN
{
	trace(1);
	exit(0);
}
