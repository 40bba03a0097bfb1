/* SPDX-License-Identifier: MIT */
/* Must fail to compile: a macro argument that was not given. */
BEGIN
{
	trace($1);
}
