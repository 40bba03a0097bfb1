/* SPDX-License-Identifier: MIT */
/* panic() takes no argument: its prototype is checked first. */
BEGIN
{
	panic(1);
}
