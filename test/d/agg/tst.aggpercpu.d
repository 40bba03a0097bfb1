/* @dtrace-opts: -q -x aggpercpu */
/* SPDX-License-Identifier: MIT */
/*
 * -x aggpercpu: each entry's line (or histogram) is followed by one
 * "[CPU N]" line (or histogram) per CPU that recorded something, the
 * value in the total's column.  CPU 0 and one other CPU record exactly
 * once each, so every value is known; a CPU that recorded nothing in an
 * entry (the "only0" key) gets no line, nor does the CPU of BEGIN, which
 * only adds zeros.
 *
 * BEGIN creates every entry first: a new key of a per-CPU hash map is
 * allocated, which can fail in a profile probe's interrupt context (an
 * aggregation drop); updating an existing key cannot.
 */
int seen0, seen1;

BEGIN
{
	@c["both"] = sum(0);
	@c["only0"] = sum(0);
	@s = sum(0);
	@q = quantize(1, 0);
	@l = lquantize(3, 0, 10, 5, 0);
}

profile:::profile-997
/cpu == 0 && !seen0/
{
	@c["both"] = sum(1);
	@c["only0"] = sum(1);
	@s = sum(10);
	@q = quantize(1);
	@l = lquantize(3, 0, 10, 5);
	seen0 = 1;
}

profile:::profile-997
/cpu != 0 && !seen1/
{
	@c["both"] = sum(1);
	@s = sum(30);
	@q = quantize(8);
	@l = lquantize(7, 0, 10, 5);
	seen1 = 1;
}

profile:::profile-997
/seen0 && seen1/
{
	printa(@c);
	exit(0);
}

tick-10s
{
	printf("not every CPU fired\n");
	exit(1);
}
