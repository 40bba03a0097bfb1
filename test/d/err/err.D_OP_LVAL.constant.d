/* SPDX-License-Identifier: MIT */
/* Must fail to compile: an assignment to a constant. */
BEGIN
{
	1 = 2;
}
