/* SPDX-License-Identifier: MIT */
/* & applies to an object only. */
BEGIN
{
	trace(&(1 + 2));
}
