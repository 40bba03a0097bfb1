/* SPDX-License-Identifier: MIT */
/* A kernel symbol that kallsyms names but the kernel's BTF does not type
 * (it types its per-CPU variables only): _etext, the end of its text. */
BEGIN
{
	trace(vmlinux`_etext);
}
