/* SPDX-License-Identifier: MIT */
/*
 * bufpolicy=fill: the records take the buffer's room once.  Each record
 * here takes 32 bytes (16 of header, 8 of data, 8 of the ring buffer's
 * own); END's is kept from the start, so 31 fit in 1k: the 32nd firing
 * finds the buffer filled and does not run, tracing ends, and END still
 * prints, with the count of the firings that ran.
 */
#pragma D option quiet
#pragma D option bufpolicy=fill
#pragma D option bufsize=1k

tick-1ms
{
	printf("%d\n", i++);
}

END
{
	printf("end %d\n", i);
}
