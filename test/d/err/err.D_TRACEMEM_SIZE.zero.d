/* SPDX-License-Identifier: MIT */
/* tracemem()'s size is a non-zero constant. */
BEGIN
{
	tracemem(alloca(8), 0);
	exit(0);
}
