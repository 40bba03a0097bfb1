/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * tick-10ms fires about 100 times a second on one CPU; tick-1s ends the
 * run.  The count is checked loosely: timers on a loaded machine slip.
 */
profile:::tick-10ms
{
	n++;
}

profile:::tick-1s
{
	printf("%d\n", n >= 50 && n <= 150);
	exit(0);
}
