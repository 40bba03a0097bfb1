/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a call to an undefined function. */
BEGIN
{
	nosuchfunction(1);
}
