/* SPDX-License-Identifier: MIT */
/* short and long together name no type: DTrace fails to resolve it. */
BEGIN
{
	i = (long short)0;
	exit(0);
}
