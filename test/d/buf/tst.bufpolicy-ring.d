/* SPDX-License-Identifier: MIT */
/*
 * bufpolicy=ring: the most recent records, 1k of them (32 bytes each:
 * header, data and the ring buffer's own header), print when tracing
 * ends, oldest first: the last 30 of the tick's, exit()'s and END's.
 */
#pragma D option quiet
#pragma D option bufpolicy=ring
#pragma D option bufsize=1k

tick-1ms
{
	printf("%d\n", i++);
}

tick-1ms
/i == 100/
{
	exit(0);
}

END
{
	printf("end %d\n", i);
}
