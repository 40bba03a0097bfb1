/* SPDX-License-Identifier: MIT */
/* A kernel symbol that does not exist. */
BEGIN
{
	trace(`no_such_kernel_symbol);
}
