/* SPDX-License-Identifier: MIT */
/* d_path() takes a struct path *, not an integer. */
BEGIN
{
	trace(d_path(1));
}
