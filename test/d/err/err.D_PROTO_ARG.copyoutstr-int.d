/* SPDX-License-Identifier: MIT */
/* copyoutstr() copies a string: its prototype is checked as DTrace's. */
BEGIN
{
	copyoutstr(1, 0, 2);
}
