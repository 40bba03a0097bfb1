/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a subroutine called with too many arguments. */
BEGIN
{
	trace(strlen("a", "b"));
}
