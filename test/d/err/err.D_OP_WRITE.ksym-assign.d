/* SPDX-License-Identifier: MIT */
/* A kernel variable is not written. */
BEGIN
{
	`cpu_number = 1;
}
