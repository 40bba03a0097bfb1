/* SPDX-License-Identifier: MIT */
/* Must fail to compile: exit() with a string argument. */
BEGIN
{
	exit("zero");
}
