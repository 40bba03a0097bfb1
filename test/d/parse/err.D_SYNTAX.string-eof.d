/* SPDX-License-Identifier: MIT */
/* A string literal that the file ends in (no newline after it). */
BEGIN
{
	x = "abc