/* SPDX-License-Identifier: MIT */
/* A character constant holds at most 8 bytes. */
BEGIN
{
	x = 'abcdefghi';
}
