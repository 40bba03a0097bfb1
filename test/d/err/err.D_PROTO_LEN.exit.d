/* SPDX-License-Identifier: MIT */
/* Must fail to compile: exit() without its argument. */
BEGIN
{
	exit();
}
