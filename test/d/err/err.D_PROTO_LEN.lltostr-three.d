/* SPDX-License-Identifier: MIT */
/* lltostr() takes a value and a base, no more. */
BEGIN
{
	trace(lltostr(1, 10, 3));
}
