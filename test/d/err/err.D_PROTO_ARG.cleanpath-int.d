/* SPDX-License-Identifier: MIT */
/* cleanpath() takes a string. */
BEGIN
{
	trace(cleanpath(1));
}
