/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a clause without its closing brace. */
BEGIN
{
	trace(1);
