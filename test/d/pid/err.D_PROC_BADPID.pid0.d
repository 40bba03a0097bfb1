/* SPDX-License-Identifier: MIT */
/* pid0 names no process. */
pid0:::entry
{
	exit(0);
}
