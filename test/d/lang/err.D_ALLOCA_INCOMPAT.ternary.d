/* SPDX-License-Identifier: MIT */
/* A ternary of an alloca() pointer and another pointer is not stored in
 * a variable: its loads and stores could not be bounded. */
BEGIN
{
	p = (char *)alloca(4);
	p = p != NULL ? (char *)64 : p;
	exit(0);
}
