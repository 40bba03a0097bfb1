/* SPDX-License-Identifier: MIT */
/*
 * A control line cut by the end of the file, without its newline, is a
 * syntax error before its directive is looked at (the option here is
 * valid: it is not what is refused).
 */
BEGIN
{
	exit(0);
}
#pragma D option quiet