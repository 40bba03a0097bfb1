/* SPDX-License-Identifier: MIT */
/* d_path() takes a struct path *, not a pointer to another struct. */
BEGIN
{
	trace(d_path(curthread));
}
