/* SPDX-License-Identifier: MIT */
/* Must fail to compile: an undefined variable read. */
BEGIN
{
	trace(nosuchvar);
}
