/* SPDX-License-Identifier: MIT */
/* tracemem() records memory at a pointer or an integer address. */
BEGIN
{
	tracemem(probename, 8);
	exit(0);
}
