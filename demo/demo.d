#!/usr/sbin/dtrace -s
/* SPDX-License-Identifier: MIT */
/*
 * demo/demo.d: what `make demo` runs against build/test/progs/demo, a toy
 * request server: BEGIN, pid probes on function entry and return, thread-
 * local variables, printf and aggregations (count and quantize), END:
 * a summary that fits on a screen.
 *
 *   sudo make demo
 *   dtrace -s demo/demo.d -c build/test/progs/demo
 */
#pragma D option quiet

dtrace:::BEGIN
{
	printf("Tracing demo (pid %d)... it ends by itself in 3 seconds.\n",
	    $target);
}

pid$target::handle_request:entry
{
	self->ts = timestamp;
	self->kind = arg1 == 0 ? "update" : "lookup";
}

/* Failures are counted, not printed one by one: a line per failure would
 * scroll the summary away (some lookups miss on purpose). */
pid$target::lookup:return
/arg1 != 0/
{
	@failed[(int)arg1] = count();
}

pid$target::handle_request:return
/self->ts/
{
	@requests[self->kind] = count();
	@latency_us[self->kind] = quantize((timestamp - self->ts) / 1000);
	self->ts = 0;
}

dtrace:::END
{
	printf("\nRequests by kind:\n");
	printa("  %-10s %@8d\n", @requests);
	printf("\nFailed lookups, by value returned:\n");
	printa("  %-10d %@8d\n", @failed);
	printf("\nLatency (microseconds):\n");
	printa(@latency_us);
}
