/* @dtrace-opts: -q */
/* SPDX-License-Identifier: MIT */
/*
 * profile-N fires on each CPU with the interrupted PC in arg0 (kernel) or
 * arg1 (user): exactly one of them is set.
 */
profile:::profile-199
{
	@both[(arg0 != 0) + (arg1 != 0)] = count();
}

profile:::tick-500ms
{
	printa("%d set\n", @both);
	exit(0);
}
