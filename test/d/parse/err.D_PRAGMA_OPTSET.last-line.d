/* SPDX-License-Identifier: MIT */
/* A #pragma on the last line, without a newline, is still read. */
BEGIN
{
	exit(0);
}
#pragma D option nosuchoption