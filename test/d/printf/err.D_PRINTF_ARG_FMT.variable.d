/* SPDX-License-Identifier: MIT */
/* A format is a string constant, not a variable holding one. */
BEGIN
{
	f = "%d\n";
	printf(f, 1);
}
