/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * min() and max() merged across CPUs: CPU 0's true minimum and maximum
 * are 0, the other CPUs' are 7 and -7.  A CPU that recorded nothing in an
 * entry another CPU created must not count, and a recorded 0 must.
 */
profile:::profile-997
/cpu == 0/
{
	@mn = min(0);
	@mx = max(0);
	@both["min"] = min(0);
	seen0 = 1;
}

profile:::profile-997
/cpu != 0/
{
	@mn = min(7);
	@mx = max(-7);
	@both["min"] = min(7);
	seen1 = 1;
}

profile:::profile-997
/seen0 && seen1/
{
	exit(0);
}

tick-10s
{
	printf("not every CPU fired\n");
	exit(1);
}
