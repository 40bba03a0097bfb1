/* SPDX-License-Identifier: MIT */
/* short and long may not be used with char. */
short char c;
BEGIN
{
	exit(0);
}
