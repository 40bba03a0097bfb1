/* SPDX-License-Identifier: MIT */
/* cleanpath() takes one path. */
BEGIN
{
	trace(cleanpath("/a", "/b"));
}
