/* SPDX-License-Identifier: MIT */
/* strtok()'s first argument is a string or NULL, not another integer. */
BEGIN
{
	trace(strtok(1, ","));
}
