/* SPDX-License-Identifier: MIT */
/* printm()'s size is a constant. */
BEGIN
{
	printm(arg0, 0);
}
