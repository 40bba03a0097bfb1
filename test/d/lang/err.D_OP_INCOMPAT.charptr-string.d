/* SPDX-License-Identifier: MIT */
/* A char * is an address in the traced process: comparing it with a
 * string needs copyinstr(). */
BEGIN
{
	trace((char *)arg0 == "lib");
}
